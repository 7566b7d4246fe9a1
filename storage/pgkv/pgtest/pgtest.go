// Package pgtest runs a private PostgreSQL cluster for a test binary, so
// tests of storage/pgkv run against a real server without touching the
// system's: one cluster per test binary, started on first use in a
// temporary folder, listening only on a Unix socket there, stopped and
// removed when the tests end; every test gets a fresh database in it.
//
// A package that uses it calls Main from its TestMain. Where PostgreSQL is
// not installed, tests that ask for a database skip, saying what is
// missing.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// User is the cluster's superuser, the role every test connects as.
const User = "citelens"

// Port is the cluster's port: only a number in the socket's name, since
// the cluster listens on no TCP address.
const Port = 5432

// socketName is the socket's file name in its folder, for port Port.
const socketName = "/.s.PGSQL.5432"

// maxSocketPath is the longest path of a Unix socket PostgreSQL takes
// (sun_path holds 108 bytes with the closing NUL).
const maxSocketPath = 107

// Database is a fresh database in the test binary's cluster.
type Database struct {
	// Host is the folder holding the cluster's socket.
	Host string
	// Name is the database's name.
	Name string
	// Role is the role the connection strings connect as: "" for User,
	// the superuser; NewRole makes others.
	Role string
}

// user is the role d connects as.
func (d Database) user() string {
	if d.Role != "" {
		return d.Role
	}
	return User
}

// ConnString is d's connection string in key=value form, as
// pgkv.Open takes it.
func (d Database) ConnString() string {
	return fmt.Sprintf("host=%s port=%d dbname=%s user=%s sslmode=disable", quote(d.Host), Port, quote(d.Name), d.user())
}

// quote is v as a value of a key=value connection string, which a
// TMPDIR with a space or a quote in it needs.
func quote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// URL is d's connection string as a postgres:// URL, the socket folder
// in its host parameter.
func (d Database) URL() string {
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", d.user(), uriEscape(d.Name), uriEscape(d.Host), Port)
}

// uriEscape percent-encodes v for a connection URI, which, as libpq's,
// reads no + as a space.
func uriEscape(v string) string {
	return strings.ReplaceAll(url.QueryEscape(v), "+", "%20")
}

var (
	mainCalled atomic.Bool
	startOnce  sync.Once
	running    *cluster
	// skipReason says why there is no cluster when that is the machine's
	// doing (PostgreSQL not installed, no usable folder), so tests skip;
	// startErr is a failure of ours or the server's, so tests fail.
	skipReason string
	startErr   error
)

// Main runs m's tests and then stops the cluster if a test started one.
// Call it from TestMain: the cluster outlives every single test, so only
// the end of the binary may stop it.
func Main(m *testing.M) {
	mainCalled.Store(true)
	code := m.Run()
	if running != nil {
		if err := running.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// New returns a fresh, empty database in the test binary's cluster,
// starting the cluster on first use. It skips t when PostgreSQL is not
// installed and fails it when the cluster does not start.
func New(t testing.TB) Database {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("pgtest: the package's TestMain must call pgtest.Main(m): it stops the cluster when the tests end")
	}
	startOnce.Do(func() { running, skipReason, startErr = start() })
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if startErr != nil {
		t.Fatal(startErr)
	}
	d, err := running.createDatabase()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cluster is a running private server and the connection that makes
// databases in it.
type cluster struct {
	base    string // the temporary folder holding the data folder (and the socket, unless sockDir is its own)
	sockDir string
	ownSock bool // sockDir is a short folder of its own, removed with the cluster
	logPath string
	server  *exec.Cmd
	exited  chan struct{} // closed when the server process has ended
	waitErr error

	mu      sync.Mutex
	admin   *pgx.Conn
	counter int
	roles   int
}

// start finds PostgreSQL, makes a cluster in a temporary folder and
// starts its server. A non-empty skip says why this machine cannot.
func start() (c *cluster, skip string, err error) {
	bin, skip := findBinaries()
	if skip != "" {
		return nil, skip, nil
	}
	// As root, the server must run as another user (initdb and postgres
	// refuse root): the postgres account the packages make, as runuser
	// -u postgres would, with the data folder its own.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, "running as root, and there is no postgres user to run a PostgreSQL server as: " + err.Error(), nil
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	base, skip, err := makeBase(cred)
	if skip != "" || err != nil {
		return nil, skip, err
	}
	c = &cluster{base: base, sockDir: base, logPath: filepath.Join(base, "server.log"), exited: make(chan struct{})}
	defer func() {
		if err != nil || skip != "" {
			c.remove()
			c = nil
		}
	}()
	if len(c.sockDir)+len(socketName) > maxSocketPath {
		// A long TMPDIR: the socket goes in a short folder of its own.
		if c.sockDir, skip, err = shortSocketDir(cred); skip != "" || err != nil {
			return c, skip, err
		}
		c.ownSock = true
		if err := writeOwner(base, c.sockDir); err != nil {
			return c, "", err
		}
	}
	data := filepath.Join(base, "data")
	if err := mkdirOwned(data, 0o700, cred); err != nil {
		return c, "", err
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "--no-sync", "-U", User, "-E", "UTF8", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return c, "", fmt.Errorf("pgtest: initdb in %s: %v\n%s", data, err, out)
	}
	if err := c.startServer(bin, data, cred); err != nil {
		return c, "", err
	}
	return c, "", nil
}

// startServer runs postgres itself rather than through pg_ctl, as a child
// that the kernel stops (SIGQUIT, PostgreSQL's immediate shutdown) if the
// test binary dies without reaching Main's end (a timeout's panic, a
// kill), so no server outlives its tests.
func (c *cluster) startServer(bin, data string, cred *syscall.Credential) error {
	logFile, err := os.Create(c.logPath)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer logFile.Close()
	srv := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", c.sockDir, "-p", strconv.Itoa(Port),
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	srv.Stdout, srv.Stderr = logFile, logFile
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := srv.Start(); err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	c.server = srv
	go func() { c.waitErr = srv.Wait(); close(c.exited) }()

	// Ready when it takes a connection: until then the socket is missing
	// or the server answers that it is starting up.
	admin := Database{Host: c.sockDir, Name: "postgres"}.ConnString()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, admin)
		cancel()
		if err == nil {
			c.admin = conn
			return nil
		}
		select {
		case <-c.exited:
			return fmt.Errorf("pgtest: postgres ended at start (%v); its log:\n%s", c.waitErr, c.logTail())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: postgres took no connection in 60 s (%v); its log:\n%s", err, c.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// createDatabase makes the next fresh database. CREATE DATABASE copies
// template1, about a tenth of a second; databases are not dropped, as the
// whole cluster is at the end.
func (c *cluster) createDatabase() (Database, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counter++
	name := fmt.Sprintf("t%d", c.counter)
	if _, err := c.admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		return Database{}, fmt.Errorf("pgtest: creating database %s: %w", name, err)
	}
	return Database{Host: c.sockDir, Name: name}, nil
}

// stop shuts the server down (fast: no one needs its data) and removes
// its folders.
func (c *cluster) stop() error {
	if c.admin != nil {
		c.admin.Close(context.Background())
	}
	var err error
	if c.server != nil {
		_ = c.server.Process.Signal(syscall.SIGINT)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = c.server.Process.Kill()
			<-c.exited
			err = fmt.Errorf("postgres did not stop in 30 s; killed it")
		}
	}
	c.remove()
	return err
}

// remove deletes the cluster's folders.
func (c *cluster) remove() {
	os.RemoveAll(c.base)
	if c.ownSock {
		os.RemoveAll(c.sockDir)
	}
}

// logTail is the end of the server's log, for an error.
func (c *cluster) logTail() string {
	b, _ := os.ReadFile(c.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// binDirs are where PostgreSQL's programs are looked for, in order:
// Debian's versioned folders (newest first), pg_config's answer, PATH.
func binDirs() []string {
	var dirs []string
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return versionOf(found[i]) > versionOf(found[j]) })
	dirs = append(dirs, found...)
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	return dirs
}

// versionOf is the major version in a path like
// /usr/lib/postgresql/15/bin, 0 when there is none.
func versionOf(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// findBinaries returns the first folder of binDirs that holds initdb and
// postgres, or why there is none.
func findBinaries() (dir, skip string) {
	return findIn(binDirs())
}

// findIn is findBinaries over the folders dirs.
func findIn(dirs []string) (dir, skip string) {
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, ""
		}
	}
	return "", "PostgreSQL not found: install postgresql-15 or later (Debian: apt-get install postgresql-15), " +
		"or put its initdb and postgres on PATH (looked in /usr/lib/postgresql/*/bin, pg_config --bindir and PATH)"
}

// isExecutable reports whether path is a file someone may run.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// makeBase makes the cluster's temporary folder, owned by the server's
// user (cred, nil for the current one). The server's user must reach it:
// a root's TMPDIR may be closed to others, and then /tmp serves.
func makeBase(cred *syscall.Credential) (base, skip string, err error) {
	parents := []string{os.TempDir()}
	if cred != nil && os.TempDir() != "/tmp" {
		parents = append(parents, "/tmp")
	}
	var why []string
	for _, parent := range parents {
		if cred != nil {
			if err := reachable(parent, cred); err != nil {
				why = append(why, err.Error())
				continue
			}
		}
		sweep(parent)
		base, err := os.MkdirTemp(parent, basePrefix)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if err := writeOwner(base, ""); err != nil {
			os.RemoveAll(base)
			return "", "", err
		}
		if err := own(base, 0o755, cred); err != nil {
			os.RemoveAll(base)
			return "", "", err
		}
		return base, "", nil
	}
	return "", "no folder for a private PostgreSQL cluster: " + strings.Join(why, "; "), nil
}

// basePrefix begins the name of a cluster's temporary folder.
const basePrefix = "citelens-pgtest-"

// ownerFile, in a cluster's folder, holds the process ID of the test
// binary that made it, and the socket's own folder if it has one.
const ownerFile = "owner"

// writeOwner writes base's owner file: this process, and sockDir.
func writeOwner(base, sockDir string) error {
	if err := os.WriteFile(filepath.Join(base, ownerFile), fmt.Appendf(nil, "%d\n%s\n", os.Getpid(), sockDir), 0o644); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}

// sweep removes from parent the folders of clusters whose test binary
// died without stopping them: a test's panic ends the binary before Main
// can. Their server died with it (startServer's Pdeathsig); their files,
// some 40 MB, stay until a later binary sweeps them.
func sweep(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, basePrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being made, or not a cluster's
		}
		lines := strings.Split(string(b), "\n")
		pid, err := strconv.Atoi(lines[0])
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		if len(lines) > 1 && strings.HasPrefix(lines[1], "/tmp/pg") {
			os.RemoveAll(lines[1])
		}
		os.RemoveAll(d)
	}
}

// alive reports whether the process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// shortSocketDir makes a folder in /tmp for the socket, when the
// temporary folder's path is too long for one.
func shortSocketDir(cred *syscall.Credential) (dir, skip string, err error) {
	if fi, err := os.Stat("/tmp"); err != nil || !fi.IsDir() {
		return "", fmt.Sprintf("the temporary folder %s is too long a path for a Unix socket (at most %d bytes with its name), and there is no /tmp to put one in", os.TempDir(), maxSocketPath), nil
	}
	dir, err = os.MkdirTemp("/tmp", "pg")
	if err != nil {
		return "", fmt.Sprintf("the temporary folder %s is too long a path for a Unix socket (at most %d bytes with its name), and /tmp takes no folder: %v", os.TempDir(), maxSocketPath, err), nil
	}
	if err := own(dir, 0o755, cred); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return dir, "", nil
}

// mkdirOwned makes dir with mode perm, owned by cred's user.
func mkdirOwned(dir string, perm os.FileMode, cred *syscall.Credential) error {
	if err := os.Mkdir(dir, perm); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return own(dir, perm, cred)
}

// own gives dir mode perm and, with cred, to cred's user.
func own(dir string, perm os.FileMode, cred *syscall.Credential) error {
	if err := os.Chmod(dir, perm); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("pgtest: giving %s to the postgres user: %w", dir, err)
		}
	}
	return nil
}

// reachable reports why cred's user could not go through every folder
// of dir's path down to dir, or nil.
func reachable(dir string, cred *syscall.Credential) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := dir; ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return err
		}
		mode := st.Mode
		ok := mode&0o001 != 0 ||
			st.Uid == cred.Uid && mode&0o100 != 0 ||
			st.Gid == cred.Gid && mode&0o010 != 0
		if !ok {
			return errors.New("the postgres user cannot enter " + p)
		}
		if p == "/" {
			return nil
		}
	}
}

// NewRole makes a new login role in the cluster, with no rights in d
// beyond connecting (grant them as d's superuser), and returns d as that
// role connects to it. With a password, the server asks the role for it
// (scram-sha-256 on the socket, where every other role is trusted):
// the connection strings carry no password, so a test gives it as a
// user would, in the URL, PGPASSWORD, a .pgpass or a service file.
func (d Database) NewRole(t testing.TB, password string) Database {
	t.Helper()
	if running == nil {
		t.Fatal("pgtest: NewRole of a Database that New did not make")
	}
	name, err := running.createRole(password)
	if err != nil {
		t.Fatal(err)
	}
	d.Role = name
	return d
}

// createRole makes the next role, and with a password has the server
// ask for it: a line before the trust of every other role in
// pg_hba.conf, and a reload, which the server takes in a moment.
func (c *cluster) createRole(password string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roles++
	name := fmt.Sprintf("role%d", c.roles)
	ctx := context.Background()
	stmt := "CREATE ROLE " + name + " LOGIN"
	if password != "" {
		stmt += " PASSWORD " + quoteLiteral(password)
	}
	if _, err := c.admin.Exec(ctx, stmt); err != nil {
		return "", fmt.Errorf("pgtest: creating role %s: %w", name, err)
	}
	if password == "" {
		return name, nil
	}
	hba := filepath.Join(c.base, "data", "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	line := fmt.Sprintf("local all %s scram-sha-256\n", name)
	if err := os.WriteFile(hba, append([]byte(line), old...), 0o600); err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if _, err := c.admin.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return "", fmt.Errorf("pgtest: reloading the server's configuration: %w", err)
	}
	// The reload is the postmaster's, a signal away: ready when the
	// role is refused without its password.
	bare := Database{Host: c.sockDir, Name: "postgres", Role: name}.ConnString()
	for deadline := time.Now().Add(30 * time.Second); ; {
		conn, err := pgx.Connect(ctx, bare+" password='' passfile=/dev/null")
		if err != nil {
			return name, nil
		}
		conn.Close(ctx)
		if time.Now().After(deadline) {
			return "", fmt.Errorf("pgtest: the server still lets role %s in without its password after 30 s", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quoteLiteral is s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
