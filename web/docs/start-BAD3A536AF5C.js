window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#app",
  validatorUrl: null,
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
});
