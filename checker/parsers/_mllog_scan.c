/* The hot loop of checker/parsers/mllog.py `_Reading._lines`, in C: optional.
 *
 * scan(data, at, end, heads, number) passes over the complete lines of data[at:end] (end just
 * past a newline) that `_lines` passes over without reading them: a record whose head
 * (`:::MLLOG {"key": "<key>`, up to the first quote from its 20th byte) is among `heads` with
 * a key that is not wanted, that ends with `}`, holds no NUL and has no `": true` after its
 * key (after its last `"metadata": ` when 512 bytes or more follow the key). It stops at the
 * first other line and returns (at, number, stop, key, start, end): where that line starts,
 * the lines counted before it, its newline at `stop`, and, when it is a record of a wanted
 * key in that shape, the key and the span of its value as `_usual` finds it (start -1 when
 * `_usual` would not read it); else key None, and the line is `_other`'s. At the end of
 * the data, at == end.
 *
 * It never reads, keeps or judges anything else: every finding is made in Python, by the
 * same code as without it (tests/test_mllog_scan.py checks both readings equal).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static const char FLAG[] = "\": true";
static const char META[] = "\"metadata\": ";
#define FLAG_LEN ((Py_ssize_t)(sizeof(FLAG) - 1))
#define META_LEN ((Py_ssize_t)(sizeof(META) - 1))
#define SHORT 512
static const char AFTER_KEY[] = "\", \"value\": ";
#define AFTER_KEY_LEN ((Py_ssize_t)(sizeof(AFTER_KEY) - 1))
#define MAX_RECORD (1024 * 1024)

/* The first `needle` wholly inside s[from:to], or -1. */
static Py_ssize_t find(const char *s, Py_ssize_t from, Py_ssize_t to, const char *needle, Py_ssize_t n)
{
    while (to - from >= n) {
        const char *hit = memchr(s + from, needle[0], (size_t)(to - from - n + 1));
        if (hit == NULL)
            return -1;
        Py_ssize_t at = hit - s;
        if (memcmp(hit, needle, (size_t)n) == 0)
            return at;
        from = at + 1;
    }
    return -1;
}

/* The last `needle` wholly inside s[from:to], or -1. */
static Py_ssize_t rfind(const char *s, Py_ssize_t from, Py_ssize_t to, const char *needle, Py_ssize_t n)
{
    for (Py_ssize_t at = to - n; at >= from; at--) {
        if (s[at] == needle[0] && memcmp(s + at, needle, (size_t)n) == 0)
            return at;
    }
    return -1;
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
    for (Py_ssize_t i = e; i < stop; i++) {
        if ((unsigned char)s[i] >= 0x80)
            return -1;
    }
    *end = e;
    return start;
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t at, end, number;
    PyObject *heads;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nnO!n", &view, &at, &end, &PyDict_Type, &heads, &number))
        return NULL;
    const char *s = view.buf;
    if (at < 0 || end > view.len || at > end) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "at and end must lie within the data");
        return NULL;
    }
    Py_ssize_t stop = end, value = -1, value_end = -1;
    PyObject *key = NULL;
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
        PyObject *head = PyBytes_FromStringAndSize(s + at, q - at);
        if (head == NULL) {
            PyBuffer_Release(&view);
            return NULL;
        }
        PyObject *known = PyDict_GetItemWithError(heads, head); /* borrowed */
        Py_DECREF(head);
        if (known == NULL) {
            if (PyErr_Occurred()) {
                PyBuffer_Release(&view);
                return NULL;
            }
            break;
        }
        Py_ssize_t from = q;
        if (stop - q >= SHORT) {
            Py_ssize_t meta = rfind(s, q, stop, META, META_LEN);
            if (meta > q)
                from = meta;
        }
        if (find(s, from, stop, FLAG, FLAG_LEN) >= 0)
            break;
        if (!PyTuple_Check(known) || PyTuple_GET_SIZE(known) != 2)
            break; /* not a verdict this module made: Python reads the line */
        int wanted = PyObject_IsTrue(PyTuple_GET_ITEM(known, 1));
        if (wanted < 0) {
            PyBuffer_Release(&view);
            return NULL;
        }
        if (wanted) {
            key = PyTuple_GET_ITEM(known, 0);
            value = usual(s, at, q, stop, &value_end);
            break;
        }
        number++;
        at = stop + 1;
    }
    PyBuffer_Release(&view);
    if (key == NULL)
        key = Py_None;
    return Py_BuildValue("nnnOnn", at, number, stop, key, value, value_end);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(data, at, end, heads, number) -> (at, number, stop, key, start, end): the lines _lines passes over, passed"},
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
