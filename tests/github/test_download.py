"""github/download.py: artifact downloads and their redirects."""

from __future__ import annotations

import pytest

from changelog_tools.errors import GitHubError
from tests.github.servers import adapter_for, answering, running

# -- hostile answers from real local servers ---------------------------------------------------


def test_a_storage_redirect_to_a_malformed_url_is_a_github_error_not_a_crash() -> None:
    storage = answering("302 Found", b"", {"Location": "http://[bad/zip"})
    with running(storage):
        server = answering("302 Found", b"", {"Location": f"{storage.url}/signed?sig=1"})
        with running(server), pytest.raises(GitHubError) as caught:
            adapter_for(server).download_artifact(7)
    assert caught.value.message == (
        "downloading artifact 7 failed: it was redirected to a malformed URL"
    )
    assert storage.header(0, "Authorization") is None
