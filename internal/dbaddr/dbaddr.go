// Package dbaddr decides what a library address names: a library file
// (bbolt) or a PostgreSQL database. The decision is made here and
// nowhere else, so --db, CITELENS_DB and the config file's db setting
// read an address the same way, and so that a PostgreSQL address is
// never taken for a file name (no file called "postgres:" is ever
// made). It also masks the password an address may hold, for every
// place that shows one.
package dbaddr

import (
	"fmt"
	"regexp"
	"strings"
)

// Kind is what an address names.
type Kind int

const (
	// File is a library file, opened with bbolt.
	File Kind = iota
	// Postgres is a PostgreSQL database: a libpq URL or key=value
	// connection string.
	Postgres
)

// Parse says what addr names. A postgres:// or postgresql:// URL
// (postgres:///team, no host: the default Unix socket) and a libpq
// key=value string (host=/run/postgresql dbname=team: every word a
// key=value pair, the first key one libpq knows) name a database;
// anything else is a file path, '=' and ':' in it or not
// (./postgres:x, notes=old.db). What looks like a URL of another kind
// (mysql://…), or a PostgreSQL URL missing its slashes (postgres:team),
// is an error, not a file of that name.
func Parse(addr string) (Kind, error) {
	if addr == "" {
		return File, fmt.Errorf("the library address is empty")
	}
	lower := strings.ToLower(addr)
	for _, scheme := range []string{"postgres", "postgresql"} {
		if strings.HasPrefix(lower, scheme+"://") {
			if !strings.HasPrefix(addr, scheme+"://") {
				// libpq reads only the lower-case scheme.
				return File, fmt.Errorf("%q: write the scheme in lower case, %s://", mask(addr), scheme)
			}
			return Postgres, nil
		}
		if strings.HasPrefix(lower, scheme+":") {
			return File, fmt.Errorf("%q is neither a file nor a PostgreSQL URL: a URL begins %s:// (postgres:///team for the database team on the local socket); a file of that name is ./%s", mask(addr), scheme, addr)
		}
	}
	if m := otherScheme.FindString(addr); m != "" {
		return File, fmt.Errorf("%q: a library is a file or a PostgreSQL database (postgres://…), not a %s address", mask(addr), strings.TrimSuffix(m, "://"))
	}
	if isKeywordValue(addr) {
		return Postgres, nil
	}
	return File, nil
}

// IsPostgres reports whether addr names a PostgreSQL database (Parse
// without the error: a bad address is not one).
func IsPostgres(addr string) bool {
	k, err := Parse(addr)
	return err == nil && k == Postgres
}

// otherScheme is a URL's scheme, of any kind but a Windows drive letter.
var otherScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]+://`)

// keywords are libpq's connection keywords
// (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-PARAMKEYWORDS).
var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`host hostaddr port dbname user password passfile require_auth
		channel_binding connect_timeout client_encoding options application_name
		fallback_application_name keepalives keepalives_idle keepalives_interval
		keepalives_count tcp_user_timeout replication gssencmode sslmode requiressl
		sslnegotiation sslcompression sslcert sslkey sslcertmode sslpassword sslrootcert
		sslcrl sslcrldir sslsni requirepeer ssl_min_protocol_version ssl_max_protocol_version
		krbsrvname gsslib gssdelegation service servicefile target_session_attrs load_balance_hosts`) {
		keywords[k] = true
	}
}

// keyword is the form of a libpq keyword: lower-case letters and '_'.
var keyword = regexp.MustCompile(`^[a-z_]+$`)

// isKeywordValue reports whether s reads, as libpq reads it, as
// keyword=value pairs, the first keyword one of libpq's. A path has a
// '/' or a '.' before its first '=' (./a=b, /x/dbname=y), or a key
// libpq does not know (notes=old.db), so it stays a path.
func isKeywordValue(s string) bool {
	pairs, ok := splitPairs(s)
	if !ok || len(pairs) == 0 || !keywords[pairs[0][0]] {
		return false
	}
	for _, p := range pairs {
		if !keyword.MatchString(p[0]) {
			return false
		}
	}
	return true
}

// splitPairs splits s into its keyword=value pairs by libpq's rules
// (spaces around '=', values quoted with ' and escaped with \), or
// reports that it is not such a string.
func splitPairs(s string) (pairs [][2]string, ok bool) {
	const space = " \t\n\r\v\f"
	s = strings.TrimLeft(s, space)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, false
		}
		key := strings.Trim(s[:eq], space)
		if key == "" || strings.ContainsAny(key, space) {
			return nil, false
		}
		s = strings.TrimLeft(s[eq+1:], space)
		var val strings.Builder
		if strings.HasPrefix(s, "'") {
			i := 1
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, false // unterminated quote
			}
			s = s[i+1:]
		} else {
			i := 0
			for ; i < len(s) && !strings.ContainsRune(space, rune(s[i])); i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			s = s[i:]
		}
		pairs = append(pairs, [2]string{key, val.String()})
		s = strings.TrimLeft(s, space)
	}
	return pairs, true
}

// Mask is what stands for a password in a shown address.
const Mask = "xxxxx"

// passwordSetting is a "password=…" setting, in key=value form or a
// URL's query, quoted or not (sslpassword too).
var passwordSetting = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]+)`)

// Redact is addr as it may be shown (messages, config show, doctor,
// --json): a password in it, in a URL's user information or a
// password= setting, is replaced by Mask. A file path is returned as
// it is.
func Redact(addr string) string {
	if k, err := Parse(addr); err == nil && k == File {
		return addr
	}
	return mask(addr)
}

// mask is Redact for an address not known to be a file's.
func mask(addr string) string {
	if i := strings.Index(addr, "://"); i >= 0 {
		addr = addr[:i+3] + redactUserinfo(addr[i+3:])
	}
	return passwordSetting.ReplaceAllString(addr, "${1}"+Mask)
}

// redactUserinfo masks the password in the part of a URL after "://":
// what lies between the first ':' and the last '@' of the user
// information. The user information ends at the last '@' before the
// query, or, when the password holds an unescaped '?', the last '@' of
// all: masking too much is better than showing a secret.
func redactUserinfo(rest string) string {
	region := rest
	if q := strings.IndexByte(rest, '?'); q >= 0 && strings.Contains(rest[:q], "@") {
		region = rest[:q]
	}
	at := strings.LastIndexByte(region, '@')
	if at < 0 {
		return rest
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return rest
	}
	return user + ":" + Mask + rest[at:]
}

// HasPassword reports whether addr holds a password (in a URL's user
// information or a password= setting), which is better kept in
// ~/.pgpass or PGPASSWORD than in a file or a shell's history.
func HasPassword(addr string) bool {
	return Redact(addr) != addr
}
