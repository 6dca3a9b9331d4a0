"""job_board service."""

from vibelife_env.services.job_board.service import JobBoardService

__all__ = ["JobBoardService"]
