"""Reference provider adapters: examples of mapping real provider traffic into agentkit_core.

They live under tests/ because they are evidence and examples, not part of the
package: each uses only the public API, and each module satisfies
``agentkit_core.ProviderAdapter``.
"""
