/** The complete public surface of @downcity/cli. */
export {};
