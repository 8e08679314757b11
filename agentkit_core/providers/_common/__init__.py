"""What every provider projection needs, written once, one concern a module.

Private to :mod:`agentkit_core.providers`.  Like the projections themselves
these modules use only the public names of :mod:`agentkit_core` (and
``agentkit_core._for_providers``, the providers' internal API): they are what a
fifth adapter, written outside the package, would write too.

* :mod:`.native`: what a public function is handed, checked once, and the
  errors that name the bad field; :mod:`.fields`: the typed readers of native
  fields (``optional_str(native, key, at)``...), the one way a field is read;
* :mod:`.namespaces`: native fields carried as namespaced metadata and written
  back, and whose a part is;
* :mod:`.data`: canonical base64, ``data:`` URLs, what inline data holds;
* :mod:`.arguments`: tool-call argument text, parsed and written;
* :mod:`.turns`: a turn's item and usage, tool results named from their
  calls, invented call ids;
* :mod:`.streams`: the fold's header keys, ``text/event-stream`` bodies,
  folding a whole stream; :mod:`.tools`: declared tools and the tool choice;
  :mod:`.held`: what users hold (SDK objects, their dumps).  These three
  are imported by module.

This module only re-exports the first six, so a projection imports what it
needs in one line (``from .._common import JsonDict, fields_to_metadata, wrong``).
"""

from __future__ import annotations

from .arguments import ARGUMENTS_MAX_DEPTH, UNREAD, dumps, loads_for_part, output_text, parse_arguments, parse_object_arguments
from .data import INPUT_AUDIO_TYPES, b64decode, b64encode, data_url, holds_text, inline_base64, parse_data_url
from .fields import obj_or_empty, optional_arr, optional_int, optional_obj, optional_str, required_arr, required_obj, required_str, str_or_none
from .namespaces import bare, copy_json, fields_to_metadata, in_namespace, metadata_to_fields, owned
from .native import NATIVE_MAX_DEPTH, JsonDict, checked_list, describe, json_object, native_events, native_object, under, wrong
from .turns import U64_END, count, invent_id, make_item, make_usage, name_results, openai_usage

__all__ = (
    "ARGUMENTS_MAX_DEPTH", "UNREAD", "dumps", "loads_for_part", "output_text", "parse_arguments", "parse_object_arguments",
    "bare", "metadata_to_fields", "fields_to_metadata", "copy_json", "in_namespace", "owned",
    "INPUT_AUDIO_TYPES", "b64decode", "b64encode", "data_url", "holds_text", "inline_base64", "parse_data_url",
    "NATIVE_MAX_DEPTH", "JsonDict", "checked_list", "describe", "json_object", "native_events", "native_object",
    "under", "wrong",
    "obj_or_empty", "optional_arr", "optional_int", "optional_obj", "optional_str", "required_arr", "required_obj",
    "required_str", "str_or_none",
    "U64_END", "count", "invent_id", "make_item", "make_usage", "name_results", "openai_usage",
)
