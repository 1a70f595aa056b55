package server

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestVersionOf: tambala version shows the version, then the revision and
// the commit time whenever the build recorded them: from the vcs settings
// of a build in a checkout, else from the pseudo-version go install
// stamps for an untagged commit (which records no vcs settings).
func TestVersionOf(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "abcdef1234567890abcdef1234567890abcdef12"
	for _, tc := range []struct {
		name     string
		set      string
		main     string
		settings []debug.BuildSetting
		noInfo   bool
		want     string
	}{
		{name: "go install @latest of an untagged commit", main: "v0.0.0-20261128140000-abcdef123456",
			want: "v0.0.0-20261128140000-abcdef123456 (abcdef123456, 2026-11-28T14:00:00Z)"},
		{name: "pseudo-version after a tag", main: "v0.3.1-0.20261128140000-0123456789ab",
			want: "v0.3.1-0.20261128140000-0123456789ab (0123456789ab, 2026-11-28T14:00:00Z)"},
		{name: "pseudo-version after a pre-release", main: "v0.4.0-rc.1.0.20261128140000-0123456789ab",
			want: "v0.4.0-rc.1.0.20261128140000-0123456789ab (0123456789ab, 2026-11-28T14:00:00Z)"},
		{name: "pseudo-version +incompatible", main: "v2.0.0-20261128140000-0123456789ab+incompatible",
			want: "v2.0.0-20261128140000-0123456789ab+incompatible (0123456789ab, 2026-11-28T14:00:00Z)"},
		{name: "go install @v0.3.0: the tag names the commit", main: "v0.3.0", want: "v0.3.0"},
		{name: "a pre-release tag is no pseudo-version", main: "v0.3.0-rc.1", want: "v0.3.0-rc.1"},
		{name: "build in a checkout: Go's pseudo-version and the vcs settings", main: "v0.0.0-20261128140000-abcdef123456+dirty",
			settings: vcs(rev, "2026-11-28T14:00:00Z", "true"),
			want:     "v0.0.0-20261128140000-abcdef123456+dirty (abcdef123456+dirty, 2026-11-28T14:00:00Z)"},
		{name: "build in a clean checkout", main: "(devel)", settings: vcs(rev, "2026-11-28T14:00:00Z", "false"),
			want: "dev (abcdef123456, 2026-11-28T14:00:00Z)"},
		{name: "-ldflags version in a checkout", set: "v0.2.0", main: "(devel)", settings: vcs(rev, "2026-11-28T14:00:00Z", "false"),
			want: "v0.2.0 (abcdef123456, 2026-11-28T14:00:00Z)"},
		{name: "-ldflags version over a pseudo-version", set: "v0.2.0", main: "v0.0.0-20261128140000-abcdef123456",
			want: "v0.2.0 (abcdef123456, 2026-11-28T14:00:00Z)"},
		{name: "-buildvcs=false", main: "(devel)", want: "dev"},
		{name: "no build info", noInfo: true, want: "dev"},
		{name: "no build info, -ldflags version", set: "v0.2.0", noInfo: true, want: "v0.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/tambalapay/tambala", Version: tc.main}, Settings: tc.settings}
			if tc.noInfo {
				bi = nil
			}
			assert.Equal(t, tc.want, versionOf(tc.set, bi, !tc.noInfo))
		})
	}
}
