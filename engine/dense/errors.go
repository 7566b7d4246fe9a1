package dense

import (
	"errors"

	"github.com/citelens/citelens/llm"
)

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNoEmbedModel means dense retrieval was asked for without an
	// embedding model; the message says what to set. It is the client's
	// own sentinel, so either package's name matches.
	ErrNoEmbedModel = llm.ErrNoEmbedModel
	// ErrEmbed means documents could not be embedded; the message says
	// which and why, and the vectors stored before the failure are kept.
	ErrEmbed = errors.New("cannot embed the documents")
)
