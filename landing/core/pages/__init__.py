"""A fetched page, what it says about its DOI (the analysis), and the pid, snapshot and analysis documents."""
