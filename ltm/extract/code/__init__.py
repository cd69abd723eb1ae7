"""The code pipeline: files, modules, classes and functions at one revision, and their edges."""
