/** The complete public surface of @downcity/core. */
export {};
