/** The complete public surface of @downcity/shell/ai. */
export {};
