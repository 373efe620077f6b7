/** The complete public surface of @downcity/core/test. */
export {};
