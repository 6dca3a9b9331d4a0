"""Wrappers for VibeLife envs (installed as ``vibelife_env.wrappers``), grouped by kind.

=================  ==========================================================
observation        :class:`ChatHistoryObservation`
action             :class:`TextToolCallAction`, :class:`ToolMenuAction`
reward             :class:`ToolCallCostReward`, :class:`SparseReward`
common             :class:`ToolCallBudget`
monitoring         :class:`TrajectoryRecorder`, :class:`TensorBoardLogger`
=================  ==========================================================
"""

if __name__ != "vibelife_env.wrappers":  # one import name only (see setup.py)
    raise ImportError(f"import this folder as vibelife_env.wrappers, not as {__name__}")


from vibelife_env.wrappers.action import TextToolCallAction, ToolMenuAction, hermes_tools_prompt, parse_tool_call_text
from vibelife_env.wrappers.common import ToolCallBudget
from vibelife_env.wrappers.monitoring import TensorBoardLogger, TrajectoryRecorder, make_summary_writer
from vibelife_env.wrappers.observation import ChatHistoryObservation
from vibelife_env.wrappers.reward import SparseReward, ToolCallCostReward

__all__ = [
    "ChatHistoryObservation",
    "SparseReward",
    "TensorBoardLogger",
    "TextToolCallAction",
    "ToolCallBudget",
    "ToolCallCostReward",
    "ToolMenuAction",
    "TrajectoryRecorder",
    "hermes_tools_prompt",
    "make_summary_writer",
    "parse_tool_call_text",
]
