"""`lint`: deterministic rules over benchmark recipes and master configs (issue 10).

The core is :func:`changelog_tools.lint.engine.run_lint` over two :class:`~.tree.TreeView`s; the
command (`changelog-tools lint`) and `signoff verify` both call it. One module per rule family.
"""
