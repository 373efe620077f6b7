/** The complete public surface of @downcity/tasks. */
export {};
