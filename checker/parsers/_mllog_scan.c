/* The hot loop of checker/parsers/mllog.py `_Reading._lines`, in C: optional.
 *
 * scan(data, at, end, heads, number, kept, budget, values, last, lines, columns, last_cost)
 * passes over the complete lines of data[at:end] (end just past a newline) that `_line` would
 * pass over or read as `_usual` reads them (`_lines` takes fewer short cuts: it sends every
 * line with a `": true` after its key to `_line`, which reads it the same):
 * - a record whose head (`:::MLLOG {"key": "<key>`, up to the first quote from its 20th
 *   byte) is among `heads` with a key that is not wanted, that ends with `}`, holds no NUL
 *   and that loadgen did not flag as `_line` judges flags (no `"is_error": true` nor
 *   `"is_warning": true` after its last `"metadata": `, or after its `{` without one):
 *   passed over, as `_line` passes over it;
 * - such a record of a wanted key in `_usual`'s shape whose value is a plain scalar that
 *   orjson reads and `_value_at` keeps (`plain` below: true, false, null, a string of
 *   printable ASCII without escapes, an integer within 64 bits (signed or not), a float of 17
 *   significant digits at most that is finite, not subnormal and not an integer past 64 bits),
 *   or a mapping of such strings in loadgen's spacing, which `_line` reads alike
 *   (`plain_mapping`: loadgen_file_sha1's), when its head is ASCII and the keep budget has room for it: kept as `_value_at` keeps it, in
 *   the LoadgenLog's dicts `values`, `last`, `lines`, `columns` and the reading's
 *   `last_cost`, its bytes added to `kept` (at most `budget`).
 * It stops at the first other line and returns (at, number, kept, stop, key, start, end):
 * where that line starts, the lines counted before it, the bytes kept, its newline at `stop`,
 * and, when it is a record of a wanted key in that shape, the key and the span of its value
 * as `_usual` finds it (start -1 when `_usual` would not read it: `_line` reads it); else key
 * None, and the line is `_other`'s. At the end of the data, at == end.
 *
 * It never judges anything else: every finding, every value it does not read and every
 * record it does not keep is made or read in Python, by the same code as without it
 * (tests/test_mllog_scan.py checks both readings equal).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

static const char FLAG[] = "\": true";
static const char META[] = "\"metadata\": ";
#define FLAG_LEN ((Py_ssize_t)(sizeof(FLAG) - 1))
#define META_LEN ((Py_ssize_t)(sizeof(META) - 1))
static const char ERROR_MARK[] = "\"is_error\": true";
static const char WARNING_MARK[] = "\"is_warning\": true";
#define ERROR_LEN ((Py_ssize_t)(sizeof(ERROR_MARK) - 1))
#define WARNING_LEN ((Py_ssize_t)(sizeof(WARNING_MARK) - 1))
static const char AFTER_KEY[] = "\", \"value\": ";
#define AFTER_KEY_LEN ((Py_ssize_t)(sizeof(AFTER_KEY) - 1))
#define MAX_RECORD (1024 * 1024)

/* The first `needle` wholly inside s[from:to], or -1; memchr looks for its byte `k` (one that
 * is rare where it is looked for: not a quote in JSON). */
static Py_ssize_t find_by(const char *s, Py_ssize_t from, Py_ssize_t to, const char *needle, Py_ssize_t n, Py_ssize_t k)
{
    for (from += k; to - from >= n - k;) {
        const char *hit = memchr(s + from, needle[k], (size_t)(to - from - (n - k) + 1));
        if (hit == NULL)
            return -1;
        Py_ssize_t at = hit - s - k;
        if (memcmp(s + at, needle, (size_t)n) == 0)
            return at;
        from = at + k + 1;
    }
    return -1;
}

static Py_ssize_t find(const char *s, Py_ssize_t from, Py_ssize_t to, const char *needle, Py_ssize_t n)
{
    return find_by(s, from, to, needle, n, 0);
}

/* The last byte c of s[from:to], or NULL: glibc's memrchr where there is one. */
static const char *last_byte(const char *s, Py_ssize_t from, Py_ssize_t to, char c)
{
#ifdef __GLIBC__
    return to > from ? memrchr(s + from, c, (size_t)(to - from)) : NULL;
#else
    for (Py_ssize_t at = to - 1; at >= from; at--) {
        if (s[at] == c)
            return s + at;
    }
    return NULL;
#endif
}

/* The last `needle` wholly inside s[from:to], or -1; looked for by its byte `k`, as find_by. */
static Py_ssize_t rfind_by(const char *s, Py_ssize_t from, Py_ssize_t to, const char *needle, Py_ssize_t n, Py_ssize_t k)
{
    for (to -= n - k - 1; to - from > k;) { /* needle[k] lies in s[from + k:to] */
        const char *hit = last_byte(s, from + k, to, needle[k]);
        if (hit == NULL)
            return -1;
        Py_ssize_t at = hit - s - k;
        if (memcmp(s + at, needle, (size_t)n) == 0)
            return at;
        to = at + k;
    }
    return -1;
}

/* Whether s[from:to] is ASCII (a loop the compiler vectorizes). */
static int ascii(const char *s, Py_ssize_t from, Py_ssize_t to)
{
    unsigned char any = 0;
    for (Py_ssize_t i = from; i < to; i++)
        any |= (unsigned char)s[i];
    return any < 0x80;
}

/* Whether loadgen flagged the record s[at:stop] (its `{` at `brace`) as `_line` judges it: an
 * `"is_error": true` or `"is_warning": true` after its last `"metadata": ` (after its `{`
 * when it has none). Both end with `": true`, looked for first. */
static int flagged(const char *s, Py_ssize_t at, Py_ssize_t brace, Py_ssize_t stop)
{
    Py_ssize_t from = rfind_by(s, at, stop, META, META_LEN, 1); /* by its `m` */
    if (from < brace)
        from = brace;
    if (find_by(s, from, stop, FLAG, FLAG_LEN, FLAG_LEN - 2) < 0)
        return 0;
    return find_by(s, from, stop, ERROR_MARK, ERROR_LEN, ERROR_LEN - 2) >= 0 ||
           find_by(s, from, stop, WARNING_MARK, WARNING_LEN, WARNING_LEN - 2) >= 0;
}

static int is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* `_usual`'s shape of the wanted record s[at:stop] whose key ends at `quote`: its value's
 * start, and its end in *end; -1 when the record is not in that shape. */
static Py_ssize_t usual(const char *s, Py_ssize_t at, Py_ssize_t quote, Py_ssize_t stop, Py_ssize_t *end)
{
    Py_ssize_t start = quote + AFTER_KEY_LEN;
    if (stop - at > MAX_RECORD || start >= stop || memcmp(s + quote, AFTER_KEY, (size_t)AFTER_KEY_LEN) != 0)
        return -1;
    Py_ssize_t e = find(s, start, stop, ", \"", 3);
    if (e <= start || is_json_space(s[start]) || is_json_space(s[e - 1]))
        return -1;
    if (!ascii(s, e, stop))
        return -1;
    *end = e;
    return start;
}

/* The value s[0:n] as orjson reads it and `_value_at` keeps it, when it is one of the plain
 * scalars that orjson, json and this read alike (a new reference); NULL, with no error set,
 * for any other (the Python reading then reads it), or with an error set when memory ran out. */
static PyObject *plain(const char *s, Py_ssize_t n)
{
    if (n == 4 && memcmp(s, "true", 4) == 0)
        Py_RETURN_TRUE;
    if (n == 5 && memcmp(s, "false", 5) == 0)
        Py_RETURN_FALSE;
    if (n == 4 && memcmp(s, "null", 4) == 0)
        Py_RETURN_NONE;
    if (s[0] == '"') {
        if (n < 2 || s[n - 1] != '"')
            return NULL;
        for (Py_ssize_t i = 1; i < n - 1; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                return NULL; /* a control character (orjson refuses it), non-ASCII, an escape, an end */
        }
        return PyUnicode_DecodeASCII(s + 1, n - 2, NULL);
    }
    /* A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and nothing else. */
    Py_ssize_t i = 0, significant = 0;
    int leading = 1, whole = 1;
    if (s[i] == '-')
        i++;
    if (i >= n || s[i] < '0' || s[i] > '9')
        return NULL;
    if (s[i] == '0') {
        i++;
    } else {
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            leading = 0;
            significant++;
        }
    }
    Py_ssize_t digits = i - (s[0] == '-');
    if (i < n && s[i] == '.') {
        whole = 0;
        Py_ssize_t from = ++i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (s[i] != '0')
                leading = 0;
            if (!leading)
                significant++;
        }
        if (i == from)
            return NULL;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        whole = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        Py_ssize_t from = i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == from || i - from > 3)
            return NULL;
    }
    if (i != n)
        return NULL;
    if (whole) { /* orjson reads one within 64 bits (signed or not) as an int, a longer one as a float */
        if (digits > 20)
            return NULL;
        unsigned long long v = 0;
        for (Py_ssize_t k = (s[0] == '-'); k < n; k++) {
            unsigned digit = (unsigned)(s[k] - '0');
            if (v > (ULLONG_MAX - digit) / 10)
                return NULL; /* past 64 bits: `_value_at` leaves the float orjson makes to `_line` */
            v = v * 10 + digit;
        }
        if (s[0] != '-')
            return PyLong_FromUnsignedLongLong(v);
        if (v > (unsigned long long)LLONG_MAX + 1)
            return NULL;
        return PyLong_FromLongLong(v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v);
    }
    if (significant > 17 || n > 63)
        return NULL;
    char text[64];
    memcpy(text, s, (size_t)n);
    text[n] = 0;
    char *after = NULL;
    double v = PyOS_string_to_double(text, &after, NULL);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    if (after != text + n || !isfinite(v) || (v != 0.0 && fabs(v) < DBL_MIN) || (v == 0.0 && significant > 0))
        return NULL; /* orjson refuses an overflow; an underflow is left to it too */
    if (fabs(v) >= 9223372036854775808.0 && v == floor(v))
        return NULL; /* `_value_at` leaves a float that is an integer past 64 bits to `_line` */
    return PyFloat_FromDouble(v);
}

/* The end of the plain string token at s[i] (just past its closing quote), or -1: `"`, then
 * printable ASCII without a quote or an escape, then `"` (what `plain` reads as a string). */
static Py_ssize_t string_end(const char *s, Py_ssize_t i, Py_ssize_t stop)
{
    if (i >= stop || s[i] != '"')
        return -1;
    for (i++; i < stop; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20 || c >= 0x80 || c == '\\')
            return -1;
    }
    return -1;
}

/* The value at s[i] when it is a mapping of plain strings to plain strings written as loadgen
 * writes it (`{}`, or `{"k": "v", "k2": "v2"}`: one space after each colon and comma, none
 * inside the braces) and followed by `, "` before `stop`: a new dict, as json reads it (a
 * key given twice keeps its first place and its last value), which `_line` reads such a
 * value to (its `_value` falls back to json's raw_decode, the value being followed by `, "`).
 * NULL with no error set for any other value (Python reads it), or with one when memory ran
 * out. */
static PyObject *plain_mapping(const char *s, Py_ssize_t i, Py_ssize_t stop)
{
    if (i >= stop || s[i] != '{')
        return NULL;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    i++;
    if (i < stop && s[i] == '}') {
        i++;
    } else {
        for (;;) {
            Py_ssize_t k = string_end(s, i, stop);
            if (k < 0 || stop - k < 3 || s[k] != ':' || s[k + 1] != ' ')
                goto other;
            Py_ssize_t v = string_end(s, k + 2, stop);
            if (v < 0)
                goto other;
            PyObject *key = PyUnicode_DecodeASCII(s + i + 1, k - i - 2, NULL);
            if (key == NULL)
                goto error;
            PyObject *value = PyUnicode_DecodeASCII(s + k + 3, v - k - 4, NULL);
            if (value == NULL) {
                Py_DECREF(key);
                goto error;
            }
            int r = PyDict_SetItem(d, key, value);
            Py_DECREF(key);
            Py_DECREF(value);
            if (r < 0)
                goto error;
            if (v < stop && s[v] == '}') {
                i = v + 1;
                break;
            }
            if (stop - v < 3 || s[v] != ',' || s[v + 1] != ' ')
                goto other;
            i = v + 2;
        }
    }
    if (stop - i < 3 || memcmp(s + i, ", \"", 3) != 0)
        goto other;
    return d;
other:
    Py_DECREF(d);
    return NULL;
error:
    Py_DECREF(d);
    return NULL;
}

/* Set d[key] = a new int of n; -1 on an error. */
static int set_int(PyObject *d, PyObject *key, Py_ssize_t n)
{
    PyObject *v = PyLong_FromSsize_t(n);
    if (v == NULL)
        return -1;
    int r = PyDict_SetItem(d, key, v);
    Py_DECREF(v);
    return r;
}

/* `_value_at`'s keeping of the value of the wanted record s[at:stop] (line `line`, its value
 * from `start`): 1 when kept, 0 when Python must keep it (a budget it would pass), -1 on an
 * error. The dicts are the LoadgenLog's and the reading's, as `_value_at` and `keep` fill them. */
static int keep(PyObject *key, PyObject *value, Py_ssize_t at, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t line,
                Py_ssize_t *kept, Py_ssize_t budget, PyObject **dicts)
{
    PyObject *values = dicts[0], *last = dicts[1], *lines = dicts[2], *columns = dicts[3], *last_cost = dicts[4];
    Py_ssize_t cost = stop - at;
    PyObject *was = PyDict_GetItemWithError(last_cost, key); /* borrowed */
    if (was == NULL && PyErr_Occurred())
        return -1;
    if (was != NULL) { /* a later value of a kept key */
        if (!PyLong_CheckExact(was))
            return 0;
        Py_ssize_t before = PyLong_AsSsize_t(was);
        if (before == -1 && PyErr_Occurred())
            return -1;
        if (*kept + cost - before > budget)
            return 0;
        if (set_int(last_cost, key, cost) < 0 || PyDict_SetItem(last, key, value) < 0)
            return -1;
        *kept += cost - before;
        return 1;
    }
    if (*kept + cost > budget)
        return 0;
    if (PyDict_SetItem(values, key, value) < 0 || set_int(lines, key, line) < 0 ||
        set_int(columns, key, start - at + 1) < 0 || set_int(last_cost, key, 0) < 0 ||
        PyDict_SetItem(last, key, value) < 0)
        return -1;
    *kept += cost;
    return 1;
}

#define MEMO 64
struct seen {
    const char *head;
    Py_ssize_t len;
    PyObject *known;
};

static void forget(struct seen *memo)
{
    for (int i = 0; i < MEMO; i++)
        Py_CLEAR(memo[i].known);
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t at, end, number, kept, budget;
    PyObject *heads, *dicts[5];
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nnO!nnnO!O!O!O!O!", &view, &at, &end, &PyDict_Type, &heads, &number, &kept,
                          &budget, &PyDict_Type, &dicts[0], &PyDict_Type, &dicts[1], &PyDict_Type, &dicts[2],
                          &PyDict_Type, &dicts[3], &PyDict_Type, &dicts[4]))
        return NULL;
    const char *s = view.buf;
    if (at < 0 || end > view.len || at > end) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "at and end must lie within the data");
        return NULL;
    }
    Py_ssize_t stop = end, value = -1, value_end = -1;
    PyObject *key = NULL;
    /* The heads met in this call and their verdicts, by a hash of a few of their bytes: a
     * log's lines cycle through a few keys, and `heads` changes only in Python. */
    struct seen memo[MEMO];
    memset(memo, 0, sizeof memo);
    while (at < end) {
        const char *newline = memchr(s + at, '\n', (size_t)(end - at));
        if (newline == NULL) { /* end is just past a newline; a caller that breaks that gets the rest as a line */
            stop = end;
            break;
        }
        stop = newline - s;
        if (!(stop > at && s[stop - 1] == '}') || memchr(s + at, 0, (size_t)(stop - at)) != NULL)
            break;
        Py_ssize_t q = -1;
        if (at + 19 < stop) {
            const char *z = memchr(s + at + 19, '"', (size_t)(stop - at - 19));
            if (z != NULL)
                q = z - s;
        }
        if (q < 0)
            break; /* no head: not among the judged ones */
        Py_ssize_t len = q - at; /* at least 19 */
        struct seen *seen = &memo[((size_t)len * 7 + (unsigned char)s[q - 1] * 31 + (unsigned char)s[q - 2] * 131 +
                                   (unsigned char)s[at + len / 2]) %
                                  MEMO];
        PyObject *known = seen->known; /* held by the memo */
        if (known == NULL || seen->len != len || memcmp(seen->head, s + at, (size_t)len) != 0) {
            PyObject *head = PyBytes_FromStringAndSize(s + at, len);
            if (head == NULL)
                goto error;
            known = PyDict_GetItemWithError(heads, head); /* borrowed */
            Py_DECREF(head);
            if (known == NULL) {
                if (PyErr_Occurred())
                    goto error;
                break;
            }
            /* Held, not borrowed: storing a value below can free an object whose __del__
             * changes `heads`. */
            Py_INCREF(known);
            Py_XSETREF(seen->known, known);
            seen->head = s + at, seen->len = len;
        }
        const char *brace = memchr(s + at, '{', (size_t)(q - at));
        if (brace == NULL || flagged(s, at, brace - s, stop))
            break;
        if (!PyTuple_CheckExact(known) || PyTuple_GET_SIZE(known) != 2 ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(known, 0)) || !PyBool_Check(PyTuple_GET_ITEM(known, 1)))
            break; /* not a verdict this module made (a str and a bool, which run no code): Python reads the line */
        if (PyTuple_GET_ITEM(known, 1) == Py_True) {
            key = PyTuple_GET_ITEM(known, 0);
            value = usual(s, at, q, stop, &value_end);
            if (value < 0)
                break;
            int ascii = 1;
            for (Py_ssize_t i = at; i < q; i++) {
                if ((unsigned char)s[i] >= 0x80)
                    ascii = 0;
            }
            PyObject *read = !ascii            ? NULL
                             : s[value] == '{' ? plain_mapping(s, value, stop)
                                               : plain(s + value, value_end - value);
            if (read == NULL) {
                if (PyErr_Occurred())
                    goto error;
                break;
            }
            int kept_here = keep(key, read, at, value, stop, number + 1, &kept, budget, dicts);
            Py_DECREF(read);
            if (kept_here < 0)
                goto error;
            if (kept_here == 0)
                break;
            key = NULL;
            value = value_end = -1;
        }
        number++;
        at = stop + 1;
    }
    PyBuffer_Release(&view);
    if (at >= end)
        key = NULL, value = value_end = -1;
    if (key == NULL)
        key = Py_None;
    PyObject *made = Py_BuildValue("nnnnOnn", at, number, kept, stop, key, value, value_end);
    forget(memo);
    return made;
error:
    PyBuffer_Release(&view);
    forget(memo);
    return NULL;
}

/* Whether v is a float that is an integer past 64 bits (what `_orjson_value` leaves to json). */
static int big_float(PyObject *v)
{
    if (!PyFloat_CheckExact(v))
        return 0;
    double d = PyFloat_AS_DOUBLE(v);
    return isfinite(d) && d == floor(d) && fabs(d) >= 9223372036854775808.0;
}

static int is_nest(PyObject *v)
{
    return PyList_Check(v) || PyDict_Check(v) || PyTuple_Check(v);
}

/* flat(value): whether a decoded value is a scalar, or a list or dict of scalars, with no float
 * that is an integer past 64 bits: then it nests at most 1 deep and `_orjson_value`'s walk
 * would find nothing. False says nothing: the Python walks decide. */
static PyObject *flat(PyObject *self, PyObject *value)
{
    (void)self;
    if (PyList_CheckExact(value)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            PyObject *item = PyList_GET_ITEM(value, i);
            if (is_nest(item) || big_float(item))
                Py_RETURN_FALSE;
        }
        Py_RETURN_TRUE;
    }
    if (PyDict_CheckExact(value)) {
        Py_ssize_t at = 0;
        PyObject *key, *item;
        while (PyDict_Next(value, &at, &key, &item)) {
            if (is_nest(item) || big_float(item))
                Py_RETURN_FALSE;
        }
        Py_RETURN_TRUE;
    }
    if (is_nest(value) || big_float(value))
        Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}

/* Whether low <= v <= high, compared as Python compares them (1, 0, or -1 on an error). */
static int within(PyObject *low, PyObject *v, PyObject *high)
{
    int r = PyObject_RichCompareBool(low, v, Py_LE);
    return r <= 0 ? r : PyObject_RichCompareBool(v, high, Py_LE);
}

/* A dict a predicate changed while it was walked: what Python's own iteration says. */
static int changed(void)
{
    PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
    return -1;
}

/* Whether `value` meets `test`: a spec tuple of checker/parsers/typed.py `_fast` (its `spec`,
 * as `_fast`'s predicate judges: (0,) a boolean; (1, low, high) a whole number in range; (2,
 * low, high) a finite number in range; (3, longest) a string of at most `longest` characters;
 * (4, most, spec) a dict of at most `most` members (None: any number), each meeting `spec`;
 * (5, most) such a dict, whatever its members),
 * or any other callable, called (1, 0, or -1 on an error). */
static int meets(PyObject *test, PyObject *value)
{
    if (!PyTuple_CheckExact(test)) {
        PyObject *r = PyObject_CallOneArg(test, value);
        if (r == NULL)
            return -1;
        int t = PyObject_IsTrue(r);
        Py_DECREF(r);
        return t;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(test);
    long code = n > 0 ? PyLong_AsLong(PyTuple_GET_ITEM(test, 0)) : -1;
    if (code == -1 && PyErr_Occurred())
        return -1;
    if (code == 0 && n == 1)
        return PyBool_Check(value);
    if ((code == 1 || code == 2) && n == 3) {
        if (PyLong_CheckExact(value))
            return within(PyTuple_GET_ITEM(test, 1), value, PyTuple_GET_ITEM(test, 2));
        if (!PyFloat_CheckExact(value))
            return 0;
        double d = PyFloat_AS_DOUBLE(value);
        if (!isfinite(d) || (code == 1 && floor(d) != d))
            return 0;
        return within(PyTuple_GET_ITEM(test, 1), value, PyTuple_GET_ITEM(test, 2));
    }
    if (code == 3 && n == 2) {
        if (!PyUnicode_CheckExact(value))
            return 0;
        PyObject *length = PyLong_FromSsize_t(PyUnicode_GET_LENGTH(value));
        if (length == NULL)
            return -1;
        int r = PyObject_RichCompareBool(length, PyTuple_GET_ITEM(test, 1), Py_LE);
        Py_DECREF(length);
        return r;
    }
    if ((code == 4 && n == 3) || (code == 5 && n == 2)) {
        if (!PyDict_CheckExact(value))
            return 0;
        PyObject *most = PyTuple_GET_ITEM(test, 1);
        if (most != Py_None) {
            PyObject *length = PyLong_FromSsize_t(PyDict_GET_SIZE(value));
            if (length == NULL)
                return -1;
            int r = PyObject_RichCompareBool(length, most, Py_LE);
            Py_DECREF(length);
            if (r <= 0)
                return r;
        }
        if (code == 5)
            return 1;
        PyObject *each = PyTuple_GET_ITEM(test, 2), *key, *item;
        Py_ssize_t at = 0, size = PyDict_GET_SIZE(value);
        /* A spec nested without end (or a predicate's) would overflow the C stack. */
        if (Py_EnterRecursiveCall(" in suspects"))
            return -1;
        int r = 1;
        while (r > 0 && PyDict_Next(value, &at, &key, &item)) {
            Py_INCREF(item);
            r = meets(each, item);
            Py_DECREF(item);
            if (r > 0 && PyDict_GET_SIZE(value) != size)
                r = changed();
        }
        Py_LeaveRecursiveCall();
        return r;
    }
    PyErr_SetString(PyExc_ValueError, "suspects: an unknown spec");
    return -1;
}

/* suspects(values, tests): the keys of `values` whose value does not meet its key's test in
 * `tests` (a key without one meets it), in the order of `values`: `typed`'s first pass. */
static PyObject *suspects(PyObject *self, PyObject *args)
{
    PyObject *values, *tests;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &values, &PyDict_Type, &tests))
        return NULL;
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    Py_ssize_t at = 0, size = PyDict_GET_SIZE(values);
    PyObject *key, *value;
    while (PyDict_Next(values, &at, &key, &value)) {
        if (PyDict_GET_SIZE(values) != size) {
            changed();
            goto fail;
        }
        /* Held before the lookup: a key's __eq__ it calls can empty `values`. */
        Py_INCREF(key);
        Py_INCREF(value);
        PyObject *test = PyDict_GetItemWithError(tests, key);
        int ok = test == NULL ? (PyErr_Occurred() ? -1 : 1) : 0;
        if (test != NULL) {
            Py_INCREF(test);
            ok = meets(test, value);
            Py_DECREF(test);
        }
        Py_DECREF(value);
        if (ok < 0 || (ok == 0 && PyList_Append(found, key) < 0)) {
            Py_DECREF(key);
            goto fail;
        }
        Py_DECREF(key);
    }
    if (PyDict_GET_SIZE(values) != size) { /* changed on its last member: Python's iteration says so too */
        changed();
        goto fail;
    }
    return found;
fail:
    Py_DECREF(found);
    return NULL;
}

static PyMethodDef methods[] = {
    {"suspects", suspects, METH_VARARGS,
     "suspects(values, tests) -> list: the keys whose value does not meet its test (typed._fast's spec or a predicate)"},
    {"flat", flat, METH_O, "flat(value) -> bool: a scalar, or a list or dict of scalars, none a float past 64 bits"},
    {"scan", scan, METH_VARARGS,
     "scan(data, at, end, heads, number, kept, budget, values, last, lines, columns, last_cost) -> (at, number, kept, "
     "stop, key, start, end): the lines _line passes over, passed, and the plain wanted values, kept"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_mllog_scan", "The per-line hot loop of checker.parsers.mllog, in C (optional).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__mllog_scan(void)
{
    return PyModule_Create(&module);
}
