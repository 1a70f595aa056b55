package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tambalapay/tambala/cmd/tambala/internal/server"
)

func backup(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("FILE", "Writes a consistent copy of the store -data and -store name to FILE, a new\n"+
		"file (an existing one is refused): written under a temporary name beside\n"+
		"it, synced, then renamed, so a FILE that exists is whole.\n"+
		"  bbolt: the database file itself (read-only, never changed).\n"+
		"  pebble: a tar of a pebble checkpoint.\n"+
		"Without -from the store must not be in use: a running server holds it.\n"+
		"With -from the copy comes from that running server's admin API (GET\n"+
		"/admin/backup, with the admin token), in the same format. Either copy\n"+
		"is restored with tambala restore. A PostgreSQL store is refused: back it\n"+
		"up with pg_dump (the command prints the lines; docs/operations-backup.md).")
	o := c.storeFlags(fs)
	from := fs.String("from", "", "take the copy from the running server whose admin API is at this `URL` (http://127.0.0.1:8081) instead of from the store")
	token := fs.String("admin-token", "", "with -from: the admin token (env TAMBALA_ADMIN_TOKEN; default: read from DATA/admin-token)")
	rest, err := c.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	file := rest[0]
	if *from != "" {
		return backupFrom(ctx, c, &adminOptions{url: *from, token: *token, data: o.data}, file)
	}
	loc, err := o.locate()
	if err != nil {
		return err
	}
	if loc.Kind == server.StorePostgres {
		return errors.New(pgBackupHelp(loc.Path, file))
	}
	hint := fmt.Sprintf("stop that server first, or take the copy through its admin API:\n"+
		"  tambala backup -from http://ADMIN_ADDR %s\n"+
		"(ADMIN_ADDR is the server's -admin-addr, 127.0.0.1:8081 by default; the admin token is read from %s, or give -admin-token)",
		file, filepath.Join(o.data, "admin-token"))
	return server.BackupStore(ctx, o.data, o.store, file, hint, c.stdout)
}

// backupFrom writes GET /admin/backup of the server at o.url to file.
func backupFrom(ctx context.Context, c *cli, o *adminOptions, file string) error {
	a, err := o.client(c)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("%s: the file exists; name a new file", file)
	}
	name := ""
	n, err := server.WriteNewFile(file, func(w io.Writer) (int64, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", a.base+"/admin/backup", nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+a.token)
		// No timeout: a large copy takes as long as it takes; ctx ends it.
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, fmt.Errorf("calling the admin API at %s: %w (is the server running? -from)", a.base, err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
			e := answerError(res.StatusCode, b)
			if res.StatusCode == http.StatusNotFound {
				return 0, fmt.Errorf("%w: the server's store cannot stream a copy (PostgreSQL: use pg_dump, docs/operations-backup.md)", e)
			}
			return 0, e
		}
		if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err == nil {
			name = params["filename"]
		}
		n, err := io.Copy(w, res.Body)
		if err != nil {
			return n, fmt.Errorf("the copy was cut short after %d bytes: %w", n, err)
		}
		return n, nil
	})
	if err != nil {
		return err
	}
	kind := "bbolt"
	if strings.HasSuffix(name, ".tar") {
		kind = "pebble"
	}
	restore := "tambala restore -data NEWDATA " + file
	if kind == "pebble" {
		restore = "tambala restore -data NEWDATA -store pebble " + file
	}
	_, err = fmt.Fprintf(c.stdout, "Backup of the %s store of the server at %s written to %s (%d bytes). Restore: %s\n", kind, a.base, file, n, restore)
	return err
}

// pgBackupHelp is backup's refusal of a PostgreSQL store: the pg_dump line
// for its schema, and how to restore it.
func pgBackupHelp(rawURL, file string) string {
	return "a PostgreSQL store is backed up with PostgreSQL's own tools, not this command:\n" +
		"  " + shellLine(pgDumpArgs(rawURL, file)) + "\n" +
		"Restore into a new, empty database (here tambala_restored), then start the server on it:\n" +
		"  " + shellLine(pgCreatedbArgs(rawURL, "tambala_restored")) + "\n" +
		"  " + shellLine(pgRestoreArgs(withDatabase(rawURL, "tambala_restored"), file)) + "\n" +
		"  " + shellLine([]string{"tambala", "serve", "-store", redactPG(withDatabase(rawURL, "tambala_restored"))}) + "\n" +
		passwordNote(rawURL) + "(docs/operations-backup.md)"
}

// pgRestoreHelp is restore's refusal of a PostgreSQL store.
func pgRestoreHelp(rawURL, file string) string {
	return "a PostgreSQL store is restored with PostgreSQL's own tools, from a pg_dump archive, into a new, empty database:\n" +
		"  " + shellLine(pgRestoreArgs(rawURL, file)) + "\n" +
		"then start the server on it:\n" +
		"  " + shellLine([]string{"tambala", "serve", "-store", redactPG(rawURL)}) + "\n" +
		passwordNote(rawURL) + "(docs/operations-backup.md)"
}

// pgDumpArgs is the pg_dump command line that backs up the store at the
// PostgreSQL URL rawURL (its search_path's schema, or the whole database)
// to file, in pg_dump's custom format.
func pgDumpArgs(rawURL, file string) []string {
	args := []string{"pg_dump", "--format=custom", "--no-owner", "--no-privileges"}
	if s := server.PostgresSchema(rawURL); s != "" {
		args = append(args, "--schema="+s)
	}
	return append(args, "--file="+file, "--dbname="+redactPG(server.LibpqURL(rawURL)))
}

// pgRestoreArgs is the pg_restore command line that restores file, a
// pg_dump archive, into the database of the URL rawURL (a new, empty one;
// the schema comes from the archive).
func pgRestoreArgs(rawURL, file string) []string {
	return []string{"pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
		"--dbname=" + redactPG(server.LibpqURL(rawURL)), file}
}

// pgCreatedbArgs is the createdb command line that creates the database
// db on the server of the PostgreSQL URL rawURL.
func pgCreatedbArgs(rawURL, db string) []string {
	return []string{"createdb", "--maintenance-db=" + redactPG(server.LibpqURL(rawURL)), db}
}

// withDatabase is rawURL naming the database db instead.
func withDatabase(rawURL, db string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	u.Path = "/" + db
	return u.String()
}

// redactPG drops a URL's password from a command line to print: libpq
// takes it from PGPASSWORD (or ~/.pgpass) instead.
func redactPG(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	if _, has := u.User.Password(); has {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

func passwordNote(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return "(the password is left out of these lines: set PGPASSWORD, or use ~/.pgpass)\n"
		}
	}
	return ""
}

// shellLine quotes args for a POSIX shell where needed.
func shellLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,@+") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
