package sqlite_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/memory/sqlite"
)

// schemaV1 is the schema of version 1, which had neither turns nor call_ids.
const schemaV1 = `
CREATE TABLE messages (session TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
CREATE TABLE summaries (session TEXT NOT NULL PRIMARY KEY, folded INTEGER NOT NULL, fingerprint INTEGER NOT NULL, summary TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE locks (session TEXT NOT NULL PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;
PRAGMA user_version = 1;
`

// A database of version 1 is upgraded when opened: its sessions load in part as if they
// had been appended by this version.
func TestUpgradesVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db := rawDB(t, path)
	if _, err := db.Exec(schemaV1); err != nil {
		t.Fatal(err)
	}
	msgs := recentTurnsSession()
	for _, session := range []string{"s", "other"} {
		for i, m := range msgs {
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO messages (session, seq, message) VALUES (?, ?, ?)", session, i, string(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	s := openStore(t, path)
	checkSameLoads(t, s, "s", msgs)
	checkSameLoads(t, s, "other", msgs)
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 5 {
		t.Errorf("schema version after the upgrade = %d, %v; want 5", v, err)
	}
}

func TestNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s := openStore(t, path)
	s.Close()
	if _, err := rawDB(t, path).Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(path, nil)
	if !errors.Is(err, sqlite.ErrSchemaVersion) {
		t.Fatalf("Open of a newer schema = %v, want ErrSchemaVersion", err)
	}
	if !strings.Contains(err.Error(), "schema version 99") {
		t.Errorf("error %q does not name the version", err)
	}
}
