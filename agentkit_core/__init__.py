"""agentkit_core: the shared language of an agent toolkit.

Transcript items made of multimodal parts, streaming deltas and their fold,
tool call and result values, usage, finish reasons, ids, errors and
cooperative cancellation; pure standard library, speaking the JSON of the Rust
``agentkit-core`` crate.  Everything public is importable from here.
"""

from types import ModuleType as _ModuleType

from .cancellation import CancellationController, CancellationHandle, TurnCancellation
from .content import (
    CustomPart,
    FilePart,
    MediaPart,
    Modality,
    Part,
    PartKind,
    ReasoningPart,
    StructuredPart,
    TextPart,
)
from .data import DataRef, Handle, InlineBytes, InlineText, Uri
from .delta import AppendBytes, AppendText, BeginPart, CommitPart, Delta, ReplaceStructured, SetMetadata
from .error import AgentError, NormalizeError, ProtocolError, TurnCancelledError
from .finish import FinishReason
from .fold import FoldState, afold_iter, fold, fold_all, fold_iter
from .ids import (
    ApprovalId,
    ArtifactId,
    MessageId,
    PartId,
    ProviderMessageId,
    SessionId,
    TaskId,
    Timestamp,
    ToolCallId,
    ToolResultId,
    TurnId,
)
from .item import Item, ItemKind, close_unanswered, unanswered_calls
from .jsontext import JsonValue, checked_json, parse_json
from .keys import (
    CUSTOM_KIND_KEY,
    FILE_NAME_KEY,
    FINISH_REASON_KEY,
    HEADER_KEYS,
    INPUT_ERROR_KEY,
    INPUT_JSON_KEY,
    INVENTED_ID_KEY,
    MIME_TYPE_KEY,
    MODALITY_KEY,
    NOT_STREAMED_KEY,
    PROVIDER_KEY,
    STREAM_CUT_KEY,
    TOOL_CALL_ID_KEY,
    TOOL_NAME_KEY,
)
from .metadata import EMPTY_METADATA, MetadataLike, MetadataMap
from .projection import ItemView, ProviderAdapter, RequestEncoder, ResponseDecoder, StreamDecoder
from .schema import parse_output, schema_of
from .settings import ModelSettings
from .tool import FilesOutput, PartsOutput, StructuredOutput, TextOutput, ToolCallPart, ToolOutput, ToolResultPart
from .toolspec import ToolAnnotations, ToolChoice, ToolSpec
from .transcript import append_items, dump_items, iter_items, load_items
from .usage import CostUsage, TokenUsage, Usage

__version__ = "0.1.0"

__all__ = (
    # transcript
    "Item",
    "ItemKind",
    "load_items",
    "iter_items",
    "dump_items",
    "append_items",
    "unanswered_calls",
    "close_unanswered",
    # content
    "Part",
    "PartKind",
    "TextPart",
    "MediaPart",
    "FilePart",
    "StructuredPart",
    "ReasoningPart",
    "ToolCallPart",
    "ToolResultPart",
    "CustomPart",
    "Modality",
    "DataRef",
    "InlineText",
    "InlineBytes",
    "Uri",
    "Handle",
    "ToolOutput",
    "TextOutput",
    "StructuredOutput",
    "PartsOutput",
    "FilesOutput",
    # declaring tools
    "ToolSpec",
    "ToolAnnotations",
    "ToolChoice",
    # types as JSON Schema, answers as types
    "schema_of",
    "parse_output",
    # portable model settings
    "ModelSettings",
    # streaming
    "Delta",
    "BeginPart",
    "AppendText",
    "AppendBytes",
    "ReplaceStructured",
    "SetMetadata",
    "CommitPart",
    "FoldState",
    "fold",
    "fold_all",
    "fold_iter",
    "afold_iter",
    # usage and finish
    "Usage",
    "TokenUsage",
    "CostUsage",
    "FinishReason",
    # metadata
    "MetadataMap",
    "JsonValue",
    "MetadataLike",
    "EMPTY_METADATA",
    # well-known metadata keys
    "INPUT_JSON_KEY",
    "INPUT_ERROR_KEY",
    "TOOL_CALL_ID_KEY",
    "TOOL_NAME_KEY",
    "MODALITY_KEY",
    "MIME_TYPE_KEY",
    "FILE_NAME_KEY",
    "CUSTOM_KIND_KEY",
    "HEADER_KEYS",
    "PROVIDER_KEY",
    "FINISH_REASON_KEY",
    "INVENTED_ID_KEY",
    "STREAM_CUT_KEY",
    "NOT_STREAMED_KEY",
    # JSON text and parsed JSON data
    "parse_json",
    "checked_json",
    # ids
    "SessionId",
    "TurnId",
    "MessageId",
    "ToolCallId",
    "ToolResultId",
    "TaskId",
    "ProviderMessageId",
    "ArtifactId",
    "PartId",
    "ApprovalId",
    "Timestamp",
    # projection
    "ItemView",
    "ResponseDecoder",
    "StreamDecoder",
    "RequestEncoder",
    "ProviderAdapter",
    # errors
    "AgentError",
    "NormalizeError",
    "ProtocolError",
    # cancellation
    "CancellationController",
    "CancellationHandle",
    "TurnCancellation",
    "TurnCancelledError",
)


def __dir__() -> list[str]:
    """The public names only: ``__all__``, ``__version__`` and the public submodules imported so far (no private module or helper)."""
    return [*__all__, "__version__", *(name for name, value in globals().items() if type(value) is _ModuleType and name[0] != "_")]
