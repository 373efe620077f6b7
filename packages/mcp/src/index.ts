/** The complete public surface of @downcity/mcp. */
export {};
