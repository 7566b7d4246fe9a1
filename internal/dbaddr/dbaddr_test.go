package dbaddr

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		addr string
		want Kind
		bad  bool
	}{
		{"library.db", File, false},
		{"/home/me/.local/share/citelens/library.db", File, false},
		{"./postgres:x", File, false},
		{"dir/postgres://x", File, false},
		{"notes=old.db", File, false},         // '=' but no libpq key
		{"./dbname=team", File, false},        // a path, '/' in the key
		{"/srv/host=a dbname=b", File, false}, // a path, '/' in the first key
		{"a:b.db", File, false},
		{"my library.db", File, false},
		{"dbname=team host=/tmp x", File, false}, // a word that is no pair
		{"postgres:///team", Postgres, false},
		{"postgresql:///team", Postgres, false},
		{"postgres://ann:s3cret@db.example.com:5433/team?sslmode=require", Postgres, false},
		{"postgres://@/team?host=/run/postgresql", Postgres, false},
		{"host=/run/postgresql dbname=team", Postgres, false},
		{"dbname=team", Postgres, false},
		{"service=team", Postgres, false},
		{"host = localhost  dbname = 'my team' user=ann", Postgres, false},
		{"host='/tmp/a dir' dbname=t", Postgres, false},
		{"postgres:team", File, true},
		{"postgresql:/team", File, true},
		{"POSTGRES://x/y", File, true},
		{"mysql://x/y", File, true},
		{"file:///tmp/x.db", File, true},
		{"", File, true},
	} {
		got, err := Parse(c.addr)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, error %v", c.addr, got, err, c.want, c.bad)
		}
		if err != nil && strings.Contains(c.addr, "s3cret") && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Parse(%q)'s error shows the password: %v", c.addr, err)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"library.db", "library.db"},
		{"./password=x.db", "./password=x.db"}, // a file: shown as it is
		{"postgres:///team", "postgres:///team"},
		{"postgres://ann@db/team", "postgres://ann@db/team"},
		{"postgres://ann:s3cret@db:5432/team", "postgres://ann:xxxxx@db:5432/team"},
		{"postgres://ann:s3c@ret@db/team", "postgres://ann:xxxxx@db/team"},
		{"postgres://ann:s3c/ret@db/team", "postgres://ann:xxxxx@db/team"},
		{"postgres://ann:s3c?ret@db/team", "postgres://ann:xxxxx@db/team"},
		{"postgres://ann@db/team?application_name=a@b", "postgres://ann@db/team?application_name=a@b"},
		{"postgres://db/team?user=ann&password=s3cret&sslmode=require", "postgres://db/team?user=ann&password=xxxxx&sslmode=require"},
		{"host=/tmp dbname=t password=s3cret", "host=/tmp dbname=t password=xxxxx"},
		{"host=/tmp password = 's3 cret' dbname=t", "host=/tmp password = xxxxx dbname=t"},
		{"host=/tmp sslpassword=s3cret", "host=/tmp sslpassword=xxxxx"},
	} {
		if got := Redact(c.addr); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.addr, got, c.want)
		}
		if HasPassword(c.addr) != (c.addr != c.want) {
			t.Errorf("HasPassword(%q) = %v", c.addr, HasPassword(c.addr))
		}
	}
}
