/** The complete public surface of @downcity/shell. */
export {};
