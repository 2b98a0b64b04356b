// (stub: filled in by its work)
