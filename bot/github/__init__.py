"""GitHub I/O for the Action and the App: githubkit adapters, one concern per module."""
