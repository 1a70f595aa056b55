package orders

import (
	"bytes"
	"strings"

	"github.com/tambalapay/tambala/errcode"
)

// proofMagic is the first bytes of each media type a funding proof may
// have.
var proofMagic = map[string][]byte{
	"application/pdf": []byte("%PDF-"),
	"image/png":       []byte("\x89PNG\r\n\x1a\n"),
	"image/jpeg":      {0xFF, 0xD8, 0xFF},
}

// ProofMediaType returns the media type of a Content-Type value that a
// funding proof may have (application/pdf, image/png or image/jpeg,
// parameters ignored), or unsupported_media_type.
func ProofMediaType(contentType string) (string, error) {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if _, ok := proofMagic[mt]; !ok {
		return "", errcode.Newf(errcode.UnsupportedMediaType, "A funding proof must be application/pdf, image/png or image/jpeg.")
	}
	return mt, nil
}

// ProofIs reports whether content begins as a file of media type mt
// (one ProofMediaType returned) does.
func ProofIs(mt string, content []byte) bool {
	magic, ok := proofMagic[mt]
	return ok && bytes.HasPrefix(content, magic)
}
