"""The steps every landing of a pull request shares: authorize reuse, wait for the checks, squash
merge pinned to the head, wait for main's push run; merge and recover both use them."""
