"""CODEOWNER sign-off verification (``changelog-tools signoff verify``)."""
