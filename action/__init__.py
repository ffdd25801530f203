"""The GitHub Action: gather inside a pull request's workflow, evaluate, publish."""
