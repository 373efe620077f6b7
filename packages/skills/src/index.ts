/** The complete public surface of @downcity/skills. */
export {};
