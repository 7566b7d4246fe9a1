package llm

import "github.com/citelens/citelens/citations"

// Usage is the token accounting of one or more model calls. It is the
// citations type so an answer's record can carry it without the citations
// package knowing about the client.
type Usage = citations.Usage
