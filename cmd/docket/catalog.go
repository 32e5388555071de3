package main

import (
	"os"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine"
)

// builtinTools are the built-in tools the session's model is offered: as
// model_catalog_json says for it, else engine.DefaultTools.
func builtinTools(cfg *config.Config) ([]engine.Tool, error) {
	if cfg.ModelCatalogJSON == "" {
		return engine.DefaultTools(), nil
	}
	b, err := os.ReadFile(cfg.ModelCatalogJSON)
	if err != nil {
		return nil, usageErrorf("model_catalog_json: %v", err)
	}
	c, err := engine.ParseCatalog(b)
	if err != nil {
		return nil, usageErrorf("model_catalog_json %s: %v", cfg.ModelCatalogJSON, err)
	}
	return c.ToolsFor(cfg.Model), nil
}
