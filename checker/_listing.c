/* The optional C lister of a folder for checker/tree.py (`Tree._listed`, the walk STR012's
 * hygiene makes of every submission): one readdir of the folder and one fstatat of each
 * file and folder in it, relative to the folder's descriptor (no path looked up again), with
 * the walk's items and the entries made here. Without a compiler the build goes on and
 * tree.py lists the folder with os.scandir (`Tree._scanned`), to the same answer
 * (tests/test_listing.py compares both).
 *
 * listed(path, base, prefix, entries, entry_type, file_kind, dir_kind, stack, real_dirs, sigs)
 *   -> (items, links, held)
 * items: the walk's (name, "file" | "dir" | "link" | "other", size, None), sorted by name;
 * links: the index in items of each symlink (its target is judged by the caller);
 * held: when `sigs` is a dict and every item is a file or a folder, each file's stat signature
 * (mode, size, dev, ino, mtime_ns, ctime_ns) from its Entry (the one made here, or the one
 * there, when it is a file of the listed size), by name, and the newest mtime or ctime among
 * them (-1 for none): what checker/cache.py's `_Proof.step` makes of the listing; else None.
 * Each file's and folder's Entry (entry_type, built as tuple.__new__ would) goes into
 * `entries` under prefix + name unless one is there; each folder goes on `stack`, its real
 * path (base + name) into `real_dirs` unless one is there, and, when `sigs` is a dict and the
 * folder is plain (its real path is that one), its stat signature (mode, size, dev, ino,
 * mtime_ns, ctime_ns) into `sigs` unless one is there. Raises OSError when the folder cannot
 * be listed. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    PyObject *name; /* str, decoded as os.fsdecode does */
    char *raw;      /* the bytes readdir gave */
    unsigned char type;
} Named;

static int by_name(const void *a, const void *b) {
    /* str order, as Python's sorted: both are str, so the comparison cannot fail */
    return PyUnicode_Compare(((const Named *)a)->name, ((const Named *)b)->name);
}

static PyObject *s_file, *s_dir, *s_link, *s_other;

static PyObject *item(PyObject *name, PyObject *kind, long long size) {
    PyObject *size_obj = PyLong_FromLongLong(size);
    if (size_obj == NULL) return NULL;
    Py_INCREF(name);
    Py_INCREF(kind);
    Py_INCREF(Py_None);
    return Py_BuildValue("(NNNN)", name, kind, size_obj, Py_None);
}

static PyObject *ns(const struct timespec *t) {
    return PyLong_FromLongLong((long long)t->tv_sec * 1000000000LL + (long long)t->tv_nsec);
}

static PyObject *sig(const struct stat *st) {
    return Py_BuildValue("(NNNNNN)", PyLong_FromUnsignedLong((unsigned long)st->st_mode),
                         PyLong_FromLongLong((long long)st->st_size),
                         PyLong_FromUnsignedLongLong((unsigned long long)st->st_dev),
                         PyLong_FromUnsignedLongLong((unsigned long long)st->st_ino), ns(&st->st_mtim),
                         ns(&st->st_ctim));
}

static PyObject *entry(PyTypeObject *type, PyObject *rel, PyObject *kind, const struct stat *st) {
    PyObject *values[9];
    values[0] = rel;
    Py_INCREF(rel);
    values[1] = kind;
    Py_INCREF(kind);
    values[2] = PyLong_FromLongLong((long long)st->st_size);
    values[3] = Py_False;
    Py_INCREF(Py_False);
    values[4] = PyLong_FromUnsignedLongLong((unsigned long long)st->st_dev);
    values[5] = PyLong_FromUnsignedLongLong((unsigned long long)st->st_ino);
    values[6] = ns(&st->st_mtim);
    values[7] = ns(&st->st_ctim);
    values[8] = PyLong_FromUnsignedLong((unsigned long)st->st_mode);
    PyObject *made = type->tp_alloc(type, 9);
    for (int i = 0; i < 9; i++) {
        if (values[i] == NULL || made == NULL) {
            for (int j = 0; j < 9; j++) Py_XDECREF(values[j]);
            Py_XDECREF(made);
            return NULL;
        }
    }
    for (int i = 0; i < 9; i++) PyTuple_SET_ITEM(made, i, values[i]);
    return made;
}

typedef struct {
    PyObject *base, *prefix, *entries;
    PyTypeObject *entry_type;
    PyObject *dir_kind, *stack, *real_dirs, *sigs;
} Walk;

/* One folder of the folder listed, as Tree._scanned has it: on the walk's stack, its real path
 * kept (unless one is), its stat kept for the proofs when it is a plain folder and stats are
 * kept (`sigs` not None), and its Entry. 0, or -1 with an exception set. */
static int folder(PyObject *name, const struct stat *st, const Walk *with) {
    int failed = -1;
    PyObject *sub = PyUnicode_Concat(with->prefix, name);
    PyObject *where = sub ? PyUnicode_Concat(with->base, name) : NULL;
    if (where == NULL || PyList_Append(with->stack, sub) < 0) goto out;
    PyObject *got = PyDict_SetDefault(with->real_dirs, sub, where); /* borrowed */
    if (got == NULL) goto out;
    if (with->sigs != Py_None && st != NULL) {
        int plain = got == where ? 1 : PyObject_RichCompareBool(got, where, Py_EQ);
        if (plain < 0) goto out;
        if (plain) {
            int there = PyDict_Contains(with->sigs, sub);
            if (there < 0) goto out;
            if (!there) {
                PyObject *held = sig(st);
                int set = held ? PyDict_SetItem(with->sigs, sub, held) : -1;
                Py_XDECREF(held);
                if (set < 0) goto out;
            }
        }
    }
    int there = PyDict_Contains(with->entries, sub);
    if (there < 0) goto out;
    if (!there) {
        PyTypeObject *type = with->entry_type;
        PyObject *judged = type->tp_alloc(type, 9);
        if (judged == NULL) goto out;
        PyObject *zero = PyLong_FromLong(0);
        if (zero == NULL) {
            Py_DECREF(judged);
            goto out;
        }
        Py_INCREF(sub);
        PyTuple_SET_ITEM(judged, 0, sub);
        Py_INCREF(with->dir_kind);
        PyTuple_SET_ITEM(judged, 1, with->dir_kind);
        Py_INCREF(Py_False);
        PyTuple_SET_ITEM(judged, 3, Py_False);
        PyTuple_SET_ITEM(judged, 2, zero);
        for (int i = 4; i < 9; i++) {
            Py_INCREF(zero);
            PyTuple_SET_ITEM(judged, i, zero);
        }
        int set = PyDict_SetItem(with->entries, sub, judged);
        Py_DECREF(judged);
        if (set < 0) goto out;
    }
    failed = 0;
out:
    Py_XDECREF(sub);
    Py_XDECREF(where);
    return failed;
}

/* The file `name`'s Entry `judged` in `held` (a dict, or NULL once the listing is not plain):
 * its signature by name, its newest time in *newest. 0, or -1 with an exception set; a
 * judged entry that is no file of `size` makes the listing not plain (NULL, cleared). */
static int hold(PyObject **held, long long *newest, PyObject *name, PyObject *judged, PyObject *file_kind,
                long long size) {
    if (*held == NULL) return 0;
    if (!PyTuple_Check(judged) || PyTuple_GET_SIZE(judged) != 9) goto not_plain;
    PyObject *kind = PyTuple_GET_ITEM(judged, 1), *judged_size = PyTuple_GET_ITEM(judged, 2);
    if (PyTuple_GET_ITEM(judged, 3) != Py_False || !PyLong_CheckExact(judged_size)) goto not_plain;
    int same = kind == file_kind ? 1 : PyObject_RichCompareBool(kind, file_kind, Py_EQ);
    if (same < 0) return -1;
    long long had = PyLong_AsLongLong(judged_size);
    if (had == -1 && PyErr_Occurred()) return -1;
    if (!same || had != size) goto not_plain;
    for (int i = 6; i < 8; i++) {
        PyObject *time = PyTuple_GET_ITEM(judged, i);
        if (!PyLong_CheckExact(time)) goto not_plain;
        long long t = PyLong_AsLongLong(time);
        if (t == -1 && PyErr_Occurred()) return -1;
        if (t > *newest) *newest = t;
    }
    PyObject *sig = PyTuple_Pack(6, PyTuple_GET_ITEM(judged, 8), judged_size, PyTuple_GET_ITEM(judged, 4),
                                 PyTuple_GET_ITEM(judged, 5), PyTuple_GET_ITEM(judged, 6), PyTuple_GET_ITEM(judged, 7));
    int set = sig ? PyDict_SetItem(*held, name, sig) : -1;
    Py_XDECREF(sig);
    return set;
not_plain:
    Py_CLEAR(*held);
    return 0;
}

/* Whether tuple.__new__ makes instances of `type` (0, or -1 with its TypeError set): Entries
 * are made as it makes them, and it refuses a tuple type with fields or a layout of its own
 * (os.stat_result, time.struct_time: a struct sequence frees more items than the 9 made).
 * Asked once a type: the last one vetted is kept. */
static PyObject *vetted;

static int vet(PyTypeObject *type) {
    if ((PyObject *)type == vetted) return 0;
    PyObject *made = PyObject_CallMethod((PyObject *)&PyTuple_Type, "__new__", "(O)", (PyObject *)type);
    if (made == NULL) return -1;
    Py_DECREF(made);
    Py_INCREF(type);
    Py_XSETREF(vetted, (PyObject *)type);
    return 0;
}

static PyObject *listed(PyObject *self, PyObject *args) {
    PyObject *path_obj, *base, *prefix, *entries, *file_kind, *dir_kind, *stack, *real_dirs, *sigs;
    PyTypeObject *entry_type;
    if (!PyArg_ParseTuple(args, "O&UUO!O!OOO!O!O", PyUnicode_FSConverter, &path_obj, &base, &prefix, &PyDict_Type,
                          &entries, &PyType_Type, &entry_type, &file_kind, &dir_kind, &PyList_Type, &stack,
                          &PyDict_Type, &real_dirs, &sigs))
        return NULL;
    if (sigs != Py_None && !PyDict_Check(sigs)) {
        Py_DECREF(path_obj);
        PyErr_SetString(PyExc_TypeError, "sigs: a dict or None");
        return NULL;
    }
    /* Entries are made as tuples of 9 items: a type that is no tuple has no room for them. */
    if (!PyType_IsSubtype(entry_type, &PyTuple_Type)) {
        Py_DECREF(path_obj);
        PyErr_SetString(PyExc_TypeError, "entry_type: a subclass of tuple");
        return NULL;
    }
    if (vet(entry_type) < 0) {
        Py_DECREF(path_obj);
        return NULL;
    }
    Walk with = {base, prefix, entries, entry_type, dir_kind, stack, real_dirs, sigs};
    int fd = open(PyBytes_AS_STRING(path_obj), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
        Py_DECREF(path_obj);
        return NULL;
    }
    DIR *dir = fdopendir(fd);
    if (dir == NULL) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
        close(fd);
        Py_DECREF(path_obj);
        return NULL;
    }
    Named *names = NULL;
    Py_ssize_t count = 0, room = 0;
    PyObject *items = NULL, *links = NULL, *result = NULL, *held = NULL;
    long long newest = -1;
    struct dirent *found;
    for (;;) {
        errno = 0;
        found = readdir(dir);
        if (found == NULL) {
            if (errno != 0) {
                PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
                goto done;
            }
            break;
        }
        const char *raw = found->d_name;
        if (raw[0] == '.' && (raw[1] == 0 || (raw[1] == '.' && raw[2] == 0))) continue;
        if (count == room) {
            room = room ? room * 2 : 32;
            Named *more = PyMem_Realloc(names, sizeof(Named) * room);
            if (more == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            names = more;
        }
        size_t length = strlen(raw);
        names[count].raw = PyMem_Malloc(length + 1);
        if (names[count].raw == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(names[count].raw, raw, length + 1);
        names[count].name = PyUnicode_DecodeFSDefaultAndSize(raw, (Py_ssize_t)length);
        names[count].type = found->d_type;
        if (names[count].name == NULL) {
            PyMem_Free(names[count].raw);
            goto done;
        }
        count++;
    }
    if (count > 1) qsort(names, (size_t)count, sizeof(Named), by_name);
    /* A DirEntry's stat looks its path up whole: one of PATH_MAX bytes or more fails
     * (ENAMETOOLONG) where fstatat would not; so does it here. */
    size_t reach = (size_t)PyBytes_GET_SIZE(path_obj);
    reach += (reach == 0 || PyBytes_AS_STRING(path_obj)[reach - 1] != '/');
    items = PyList_New(0);
    links = PyList_New(0);
    if (items == NULL || links == NULL) goto done;
    if (sigs != Py_None && (held = PyDict_New()) == NULL) goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        Named *at = &names[i];
        struct stat st;
        unsigned char type = at->type;
        int stated = 0;
        int reachable = reach + strlen(at->raw) < PATH_MAX;
        if (type == DT_UNKNOWN) { /* as DirEntry.is_file(follow_symlinks=False) learns it */
            if (!reachable || fstatat(fd, at->raw, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                type = 0; /* an error: "other", as the scandir walk has it */
            } else {
                stated = 1;
                type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
            }
        }
        PyObject *made = NULL;
        if (type == DT_REG || type == DT_DIR) {
            if (!stated && (!reachable || fstatat(fd, at->raw, &st, AT_SYMLINK_NOFOLLOW) != 0)) {
                stated = -1;
            }
            if (stated < 0 && type == DT_REG) {
                Py_CLEAR(held);
                made = item(at->name, s_other, 0);
            } else if (type == DT_REG) {
                made = item(at->name, s_file, (long long)st.st_size);
                PyObject *rel = made ? PyUnicode_Concat(prefix, at->name) : NULL;
                if (rel == NULL) {
                    Py_XDECREF(made);
                    goto done;
                }
                PyObject *judged = PyDict_GetItemWithError(entries, rel); /* borrowed */
                int there = judged != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
                if (there == 1) {
                    Py_INCREF(judged);
                } else if (there == 0) {
                    judged = entry(entry_type, rel, file_kind, &st);
                    if (judged == NULL || PyDict_SetItem(entries, rel, judged) < 0) there = -1;
                }
                if (there >= 0 && hold(&held, &newest, at->name, judged, file_kind, (long long)st.st_size) < 0)
                    there = -1;
                Py_XDECREF(judged);
                Py_DECREF(rel);
                if (there < 0) {
                    Py_DECREF(made);
                    goto done;
                }
            } else {
                made = item(at->name, s_dir, 0);
                if (made == NULL || folder(at->name, stated < 0 ? NULL : &st, &with) < 0) {
                    Py_XDECREF(made);
                    goto done;
                }
            }
        } else if (type == DT_LNK) {
            Py_CLEAR(held);
            made = item(at->name, s_link, 0);
            PyObject *index = made ? PyLong_FromSsize_t(i) : NULL;
            if (index == NULL || PyList_Append(links, index) < 0) {
                Py_XDECREF(index);
                Py_XDECREF(made);
                goto done;
            }
            Py_DECREF(index);
        } else {
            Py_CLEAR(held);
            made = item(at->name, s_other, 0);
        }
        if (made == NULL || PyList_Append(items, made) < 0) {
            Py_XDECREF(made);
            goto done;
        }
        Py_DECREF(made);
    }
    if (held != NULL) {
        PyObject *pair = Py_BuildValue("(OL)", held, newest);
        if (pair == NULL) goto done;
        Py_SETREF(held, pair);
    }
    result = PyTuple_Pack(3, items, links, held != NULL ? held : Py_None);
done:
    Py_XDECREF(held);
    closedir(dir); /* closes fd */
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_DECREF(names[i].name);
        PyMem_Free(names[i].raw);
    }
    PyMem_Free(names);
    Py_XDECREF(items);
    Py_XDECREF(links);
    Py_DECREF(path_obj);
    return result;
}

static PyMethodDef methods[] = {
    {"listed", listed, METH_VARARGS, "One folder of Tree.walk, listed and stat-ed (see the module's source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_listing", NULL, -1, methods};

PyMODINIT_FUNC PyInit__listing(void) {
    s_file = PyUnicode_InternFromString("file");
    s_dir = PyUnicode_InternFromString("dir");
    s_link = PyUnicode_InternFromString("link");
    s_other = PyUnicode_InternFromString("other");
    if (s_file == NULL || s_dir == NULL || s_link == NULL || s_other == NULL) return NULL;
    PyObject *made = PyModule_Create(&module);
    /* HELD: `listed` gives the proof's step of a listing too (checker/tree.py asks) */
    if (made != NULL && PyModule_AddIntConstant(made, "HELD", 1) < 0) Py_CLEAR(made);
    return made;
}
