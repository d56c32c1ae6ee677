// Command ferretdb runs an embedded FerretDB v1 (SQLite handler) for local
// development and CI. It wraps github.com/FerretDB/FerretDB/ferretdb because
// `go install` of FerretDB's own cmd panics without a generated version file.
//
// Usage:
//
//	ferretdb -listen-addr 127.0.0.1:27017 -state-dir ./.data/ferretdb
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (port 0 picks a free port)")
	stateDir := flag.String("state-dir", "", "directory for SQLite databases (created if missing; required)")
	logLevel := flag.String("log-level", "info", "log level: debug, info, warn, error")
	flag.Parse()

	if err := run(*listenAddr, *stateDir, *logLevel); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb: %v\n", err)
		os.Exit(1)
	}
}

func run(listenAddr, stateDir, logLevel string) error {
	if stateDir == "" {
		return fmt.Errorf("-state-dir is required")
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("invalid -log-level %q: %w", logLevel, err)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(logger)

	dir, err := filepath.Abs(stateDir)
	if err != nil {
		return err
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}

	// FerretDB's SQLite handler expects a "file:" URI naming a directory,
	// with a trailing slash.
	sqliteURL := (&url.URL{Scheme: "file", Opaque: filepath.ToSlash(dir)}).String()
	if !strings.HasSuffix(sqliteURL, "/") {
		sqliteURL += "/"
	}

	// Telemetry is off: the embeddable package never starts the telemetry
	// reporter, and ferretdb.New disables and locks it in its in-memory state.

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listenAddr},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: sqliteURL,
	})
	if err != nil {
		return err
	}

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	// The listener is bound by New; MongoDBURI reports the actual port.
	u, err := url.Parse(f.MongoDBURI())
	if err == nil {
		fmt.Fprintf(os.Stderr, "ferretdb listening on %s (state dir %s)\n", u.Host, dir)
	}

	select {
	case err = <-done:
		// Run returned without a signal: should not happen, treat as failure.
		if err == nil {
			err = fmt.Errorf("server stopped unexpectedly")
		}
		return err
	case sig := <-sigs:
		signal.Stop(sigs) // a second signal kills the process the default way
		logger.Info("shutting down", slog.String("signal", sig.String()))
		cancel()
	}

	if err = <-done; err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
