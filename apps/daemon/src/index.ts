/** The complete public surface of @downcity/daemon. */
export {};
