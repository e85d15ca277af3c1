"""The registries' APIs and owners: Crossref members and DataCite clients, read from their answers."""
