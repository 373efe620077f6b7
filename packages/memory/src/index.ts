/** The complete public surface of @downcity/memory. */
export {};
