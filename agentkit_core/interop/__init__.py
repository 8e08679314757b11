"""Other libraries' tools and histories <-> agentkit values: MCP, pydantic-ai, LangChain.

One module a library, each opening with its mapping table (the full tables
are in ``docs/interop.md``):

* :mod:`agentkit_core.interop.mcp`: Model Context Protocol tools and tool
  results (``specs_from_tools``, ``tools_from_specs``, ``output_from_result``,
  ``result_from_output``);
* :mod:`agentkit_core.interop.pydantic_ai`: pydantic-ai's message history
  (``items_from_messages``, ``messages_from_items``);
* :mod:`agentkit_core.interop.langchain`: LangChain's messages
  (``items_from_messages``, ``messages_from_items``).

Standard library only, and no library is imported: their objects are read by
what they have (``model_dump()``, dataclass fields, attributes), and what is
written back is the plain JSON form each library validates.  What one side
cannot carry is kept in metadata under the library's namespace (``mcp.*``,
``pydantic_ai.*``, ``langchain.*``) and written back from there.  Nothing
here is loaded by ``import agentkit_core``; import the module you need.
"""

__all__: tuple[str, ...] = ()


def __dir__() -> list[str]:
    """The public names only (the modules, once imported)."""
    return list(__all__)
