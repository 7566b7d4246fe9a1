package pgkv

// The statements a transaction sends. A key is found through the
// entries' index (bucket, substr(key, 1, 1024), sha256(key)), so every
// statement names a key by those expressions, spelt as the index spells
// them. Ranges compare the head first (a key's head sorts where the key
// does) and come in the index's order, the heads': keys that share a
// head of 1024 bytes come in any order among themselves, and the cursor
// sorts them (see cursor.fetch), which costs the server nothing, where an
// ORDER BY of the whole key would sort every row.
const (
	// headLen is how many leading bytes of a key the entries' index
	// holds. A btree index entry holds at most about 2.7 kB and a key may
	// be MaxKeySize (32 kB), so the index holds a key's head and its
	// digest, which tells apart keys that share a head.
	headLen = 1024

	// keyIs matches the key $2 in the bucket $1.
	keyIs = `bucket = $1::bigint AND substr(key, 1, 1024) = substr($2::bytea, 1, 1024) AND sha256(key) = sha256($2::bytea) AND key = $2::bytea`

	qBeginRead  = `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`
	qBeginWrite = `BEGIN ISOLATION LEVEL READ COMMITTED, READ WRITE`
	qVersion    = `SELECT version FROM citelens_meta`
	// qTryBump takes the writer lock if it is free and then adds one to
	// the store's version, which it returns; no row when the lock is
	// taken. The UPDATE finds the row as the last writer left it even
	// when that writer committed after this statement's snapshot (READ
	// COMMITTED re-reads an updated row).
	qTryBump = `WITH l AS (SELECT pg_try_advisory_xact_lock($1) AS got)
		UPDATE citelens_meta SET version = version + 1 FROM l WHERE l.got RETURNING version`
	qLock = `SELECT pg_advisory_xact_lock($1)`
	qBump = `UPDATE citelens_meta SET version = version + 1 RETURNING version`
	// qTop is every top-level bucket, so that Tx.Bucket asks nothing; for
	// a writer, qTopWrite says too whether each holds nested buckets
	// (see bucketState.children).
	qTop      = `SELECT e.key, b.id, b.seq FROM citelens_entries e JOIN citelens_buckets b ON b.id = e.child WHERE e.bucket = 0`
	qTopWrite = `SELECT e.key, b.id, b.seq, EXISTS (SELECT FROM citelens_buckets c WHERE c.parent = b.id)
		FROM citelens_entries e JOIN citelens_buckets b ON b.id = e.child WHERE e.bucket = 0`

	// qLookup is what the key $2 of bucket $1 holds: a nested bucket's
	// id and counter and whether it holds buckets itself, nulls for a
	// value, no row when absent.
	qLookup = `SELECT e.child, b.seq, EXISTS (SELECT FROM citelens_buckets c WHERE c.parent = e.child)
		FROM citelens_entries e LEFT JOIN citelens_buckets b ON b.id = e.child WHERE e.` + keyIs
	// qChildren names the nested buckets of $1, up to $2 of them.
	qChildren = `SELECT e.key FROM citelens_buckets b JOIN citelens_entries e ON e.child = b.id WHERE b.parent = $1 LIMIT $2`

	qGet     = `SELECT value FROM citelens_entries WHERE ` + keyIs
	qGetMany = `SELECT key, value FROM citelens_entries WHERE bucket = $1::bigint
		AND substr(key, 1, 1024) = ANY (ARRAY(SELECT substr(k, 1, 1024) FROM unnest($2::bytea[]) k))
		AND key = ANY ($2::bytea[])`
	qCount = `SELECT count(*) FROM citelens_entries WHERE bucket = $1`

	// qPutMany sets the values $3 of the keys $2, sent with other writes
	// when the transaction knows no key names a bucket; should one name
	// a bucket after all, its row breaks the table's CHECK, and the
	// statement fails, and with it the transaction, rather than overwrite
	// a bucket. The keys must differ.
	qPutMany = `INSERT INTO citelens_entries (bucket, key, value)
		SELECT $1::bigint, k, v FROM unnest($2::bytea[], $3::bytea[]) AS u(k, v)
		ON CONFLICT (bucket, substr(key, 1, 1024), sha256(key)) DO UPDATE SET value = EXCLUDED.value`
	// qPutAsking sets a value, sent alone where the transaction does not
	// know whether the key names a bucket: then no row changes.
	qPutAsking = `INSERT INTO citelens_entries (bucket, key, value) VALUES ($1, $2, $3)
		ON CONFLICT (bucket, substr(key, 1, 1024), sha256(key))
		DO UPDATE SET value = EXCLUDED.value WHERE citelens_entries.child IS NULL`
	// qDeleteMany deletes the values of the keys $2, sent with other
	// writes when the transaction knows no key names a bucket.
	qDeleteMany = `DELETE FROM citelens_entries WHERE bucket = $1::bigint
		AND substr(key, 1, 1024) = ANY (ARRAY(SELECT substr(k, 1, 1024) FROM unnest($2::bytea[]) k))
		AND key = ANY ($2::bytea[]) AND child IS NULL`
	// qDeleteAsking deletes a value and says whether the key names a
	// bucket instead.
	qDeleteAsking = `WITH d AS (DELETE FROM citelens_entries WHERE ` + keyIs + ` AND child IS NULL)
		SELECT EXISTS (SELECT FROM citelens_entries WHERE ` + keyIs + ` AND child IS NOT NULL)`
	// qCreate makes the nested bucket $2 in $1 unless the key is taken,
	// and returns the new id, or what holds the key: whether it is
	// there, its bucket's id and counter (nulls for a value).
	qCreate = `WITH e AS (SELECT child FROM citelens_entries WHERE ` + keyIs + `),
		b AS (INSERT INTO citelens_buckets (parent) SELECT $1::bigint WHERE NOT EXISTS (SELECT FROM e) RETURNING id),
		i AS (INSERT INTO citelens_entries (bucket, key, child) SELECT $1::bigint, $2::bytea, id FROM b)
		SELECT (SELECT id FROM b), EXISTS (SELECT FROM e), (SELECT child FROM e),
			(SELECT seq FROM citelens_buckets WHERE id = (SELECT child FROM e))`
	// qDeleteBucket deletes the nested bucket $2 of $1 and all below it
	// (the foreign keys cascade) and says what held the key: whether it
	// was there and whether it was a bucket.
	qDeleteBucket = `WITH e AS (SELECT child FROM citelens_entries WHERE ` + keyIs + `),
		d AS (DELETE FROM citelens_buckets WHERE id = (SELECT child FROM e))
		SELECT EXISTS (SELECT FROM e), EXISTS (SELECT FROM e WHERE child IS NOT NULL)`
	qSetSeq = `UPDATE citelens_buckets SET seq = $2 WHERE id = $1`

	// A cursor's pages: $3 keys from $2 on (or after it), or before it
	// (qBefore), or the bucket's last ones; and every key of the head of
	// $2 (qRun).
	qFrom = `SELECT key, value FROM citelens_entries WHERE bucket = $1
		AND substr(key, 1, 1024) >= substr($2::bytea, 1, 1024) AND key >= $2::bytea
		ORDER BY substr(key, 1, 1024) LIMIT $3`
	qAfter = `SELECT key, value FROM citelens_entries WHERE bucket = $1
		AND substr(key, 1, 1024) >= substr($2::bytea, 1, 1024) AND key > $2::bytea
		ORDER BY substr(key, 1, 1024) LIMIT $3`
	qBefore = `SELECT key, value FROM citelens_entries WHERE bucket = $1
		AND substr(key, 1, 1024) <= substr($2::bytea, 1, 1024) AND key < $2::bytea
		ORDER BY substr(key, 1, 1024) DESC LIMIT $3`
	qLast = `SELECT key, value FROM citelens_entries WHERE bucket = $1
		ORDER BY substr(key, 1, 1024) DESC LIMIT $2`
	qRun = `SELECT key, value FROM citelens_entries WHERE bucket = $1 AND substr(key, 1, 1024) = substr($2::bytea, 1, 1024)`
)
