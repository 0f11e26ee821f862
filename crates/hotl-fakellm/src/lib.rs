//! A local fake LLM provider.
