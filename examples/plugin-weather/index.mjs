import { definePlugin, defineService } from "@downcity/core";
import { z } from "zod";

// A stand-in forecast; a real plug-in would call a weather API here.
const temperatureIn = (city) => 10 + (city.length % 15);

export default definePlugin({
  name: "weather",
  version: "1.0.0",
  // Its downcity.json section: "weather": { "unit": "F" }
  config: z.strictObject({ unit: z.enum(["C", "F"]).default("C") }),
  setup({ config, logger }) {
    const forecast = (city) => {
      const celsius = temperatureIn(city);
      const temperature = config.unit === "F" ? Math.round(celsius * 1.8 + 32) : celsius;
      return { city, temperature, unit: config.unit };
    };
    return {
      tools: [
        {
          weather_now: {
            description: "Current temperature in a city",
            inputSchema: z.object({ city: z.string().min(1) }),
            execute: async ({ city }) => {
              logger.info({ city }, "weather asked");
              return forecast(city);
            },
          },
        },
      ],
      // `downcity weather forecast --city Oslo` and POST /api/services/command
      services: [
        defineService({
          name: "weather",
          actions: {
            forecast: { input: z.object({ city: z.string().min(1) }), handler: ({ city }) => forecast(city) },
          },
        }),
      ],
    };
  },
});
