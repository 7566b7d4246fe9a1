package docstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"strconv"

	"github.com/citelens/citelens/storage"
)

// Authors: who added a document or saved an answer. On a server the
// database role says who; but a team often shares one role, so the
// operating-system user is recorded beside it, and shown when the two
// differ. A library file has no role: its author is the OS user.

// Author is who wrote a record.
type Author struct {
	// Role is the database role (PostgreSQL's current_user), empty for a
	// library file.
	Role string `json:"role,omitempty"`
	// User is the operating-system user who ran citelens.
	User string `json:"user,omitempty"`
}

// String is how people read an author: the role, then the OS user in
// brackets when it is another name ("analysts (maria)"); the OS user
// alone where there is no role.
func (a Author) String() string {
	switch {
	case a.Role == "":
		return a.User
	case a.User == "" || a.User == a.Role:
		return a.Role
	}
	return fmt.Sprintf("%s (%s)", a.Role, a.User)
}

// author is who is writing to l now: the store's role, if it has
// identities (storage.Identity), and the OS user. The role is asked of
// the store once per library.
func (l *Library) author() *Author {
	a := &Author{User: osUser()}
	if s, ok := l.store.(*storeDB); ok {
		if id, ok := s.DB.(storage.Identity); ok {
			l.roleOnce.Do(func() { l.role, _ = id.Role() })
			a.Role = l.role
		}
	}
	return a
}

// Author is who is writing to the library now, as an answer saved (or a
// document added) now will record it.
func (l *Answers) Author() Author { return *(*Library)(l).author() }

// osUser is the operating-system user's name: the account's, else
// $USER, else the user ID.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "uid " + strconv.Itoa(os.Getuid())
}

// withAuthor is an answer record with an "author" field: record itself
// when it has one, else with old's author (old: the record it replaces,
// nil for none) or now. The field goes last, and the record's own bytes
// stay as they are.
func withAuthor(record, old []byte, now *Author) ([]byte, error) {
	var probe struct {
		Author json.RawMessage `json:"author"`
	}
	if err := json.Unmarshal(record, &probe); err != nil {
		return nil, fmt.Errorf("an answer record must be a JSON object: %w", err)
	}
	if probe.Author != nil {
		return record, nil
	}
	a, _ := json.Marshal(now)
	if old != nil {
		var was struct {
			Author json.RawMessage `json:"author"`
		}
		if json.Unmarshal(old, &was) == nil && was.Author != nil {
			a = was.Author
		}
	}
	i := bytes.LastIndexByte(record, '}')
	if i < 0 {
		return nil, fmt.Errorf("an answer record must be a JSON object")
	}
	out := make([]byte, 0, len(record)+len(a)+12)
	out = append(out, record[:i]...)
	if body := bytes.TrimSpace(record[bytes.IndexByte(record, '{')+1 : i]); len(body) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"author":`...)
	out = append(out, a...)
	return append(out, record[i:]...), nil
}
