"""legal_search service."""

from vibelife_env.services.legal_search.service import LegalSearchService

__all__ = ["LegalSearchService"]
