"""One small function per question the sign-off bot answers; each returns a
:class:`~changelog_tools.signoff.verdict.Check` from facts already gathered, and none of them
publishes anything."""
