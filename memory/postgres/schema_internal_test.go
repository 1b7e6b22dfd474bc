package postgres

import (
	"regexp"
	"testing"
)

// No migration removes anything: upgrades only add.
func TestMigrationsNeverRemove(t *testing.T) {
	destructive := regexp.MustCompile(`(?i)\b(DROP|TRUNCATE|DELETE|RENAME)\b`)
	if len(migrations) != SchemaVersion {
		t.Fatalf("%d migrations for schema version %d", len(migrations), SchemaVersion)
	}
	for i, m := range migrations {
		if loc := destructive.FindStringIndex(m); loc != nil {
			t.Errorf("migration to version %d has %q", i+1, m[loc[0]:loc[1]])
		}
	}
}
