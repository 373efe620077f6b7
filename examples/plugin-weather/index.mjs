import { definePlugin, defineService } from "@downcity/core";
import { z } from "zod";

// A stand-in; a real plug-in would call a weather API here.
function forecast(city, unit) {
  const celsius = 10 + (city.length % 15);
  return { city, temperature: unit === "F" ? Math.round(celsius * 1.8 + 32) : celsius, unit };
}

export default definePlugin({
  name: "weather",
  version: "1.0.0",
  // Its downcity.json section: "weather": { "unit": "F" }
  config: z.strictObject({ unit: z.enum(["C", "F"]).default("C") }),
  setup({ config, logger }) {
    const cityInput = z.object({ city: z.string().min(1) });
    return {
      tools: [
        {
          weather_now: {
            description: "Current temperature in a city",
            inputSchema: cityInput,
            execute: async ({ city }) => {
              logger.info({ city }, "weather asked");
              return forecast(city, config.unit);
            },
          },
        },
      ],
      // A service: `downcity weather forecast Oslo` and POST /api/services/command.
      services: [
        defineService({
          name: "weather",
          actions: { forecast: { input: cityInput, handler: ({ city }) => forecast(city, config.unit) } },
        }),
      ],
    };
  },
});
