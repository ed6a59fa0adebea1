// The characters of a MuPDF text page with their boxes, as reportgen.pdf.textlayer needs
// them: the lines PyMuPDF's rawdict gives, without a Python dict per character.
//
// Built by `make` (see native.py) against the headers of the installed PyMuPDF, for its
// MuPDF version only. Each box comes from PyMuPDF's own JM_char_bbox (its address is
// handed over by native.py), so it is the box rawdict reports, bit for bit. Wherever
// rawdict might differ (a block that is not text, a line whose last character has an
// empty box, which rawdict may drop, or any MuPDF error), page_lines returns None and
// the caller takes the rawdict path.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef PYMUPDF_VERSION  // set by native.build: the PyMuPDF whose JM_char_bbox is called
#error "build with -DPYMUPDF_VERSION=..."
#endif

extern "C" {
#include "mupdf/fitz/version.h"
#include "mupdf/fitz/geometry.h"
#include "mupdf/fitz/structured-text.h"
}

// PyMuPDF's box of a character: JM_char_bbox(const mupdf::FzStextLine&,
// const mupdf::FzStextChar&). Each of those classes holds one pointer, so a reference to
// one is the address of a pointer.
typedef fz_rect (*char_bbox_fn)(fz_stext_line *const *line, fz_stext_char *const *ch);
static char_bbox_fn char_bbox = nullptr;

static bool overlap(const fz_rect &a, const fz_rect &b)
{
    return !(a.x0 >= b.x1 || a.y0 >= b.y1 || a.x1 <= b.x0 || a.y1 <= b.y0);
}

static bool is_empty(const fz_rect &r) { return r.x0 >= r.x1 || r.y0 >= r.y1; }

// The part of `line` inside `page` is empty (MuPDF's fz_intersect_rect, then empty).
static bool outside(const fz_rect &page, const fz_rect &line)
{
    if (fz_is_infinite_rect(line)) return is_empty(page);
    fz_rect r = page;
    if (r.x0 < line.x0) r.x0 = line.x0;
    if (r.y0 < line.y0) r.y0 = line.y0;
    if (r.x1 > line.x1) r.x1 = line.x1;
    if (r.y1 > line.y1) r.y1 = line.y1;
    return is_empty(r);
}

// Lines of (char, (x0, y0, x1, y1)), the block number of each and its direction; false
// where the rawdict path must decide (the caller drops what was gathered).
static bool walk(fz_stext_page *tp, PyObject *lines, PyObject *blocks, PyObject *dirs)
{
    const fz_rect page = tp->mediabox;
    const bool inf = fz_is_infinite_rect(page);
    long bno = -1;
    for (fz_stext_block *b = tp->first_block; b; b = b->next) {
        if (b->type != FZ_STEXT_BLOCK_TEXT) return false;
        if (!(inf || overlap(page, b->bbox))) continue;
        bno++;
        for (fz_stext_line *ln = b->u.t.first_line; ln; ln = ln->next) {
            if (!inf && outside(page, ln->bbox)) continue;
            PyObject *chars = PyList_New(0);
            if (!chars) return false;
            fz_rect last = {0, 0, 0, 0};  // set by the first character kept
            for (fz_stext_char *ch = ln->first_char; ch; ch = ch->next) {
                fz_rect r;
                try {
                    r = char_bbox(&ln, &ch);
                } catch (...) {  // a MuPDF error (out of memory): rawdict will report it
                    Py_DECREF(chars);
                    return false;
                }
                if (!inf && !overlap(page, r)) continue;
                PyObject *t = Py_BuildValue("(C(ffff))", ch->c, r.x0, r.y0, r.x1, r.y1);
                if (!t || PyList_Append(chars, t) < 0) {
                    Py_XDECREF(t);
                    Py_DECREF(chars);
                    return false;
                }
                Py_DECREF(t);
                last = r;
            }
            if (PyList_GET_SIZE(chars) == 0) {
                Py_DECREF(chars);
                continue;
            }
            if (is_empty(last)) {  // rawdict drops a trailing span whose box is empty
                Py_DECREF(chars);
                return false;
            }
            PyObject *bn = PyLong_FromLong(bno);
            PyObject *d = Py_BuildValue("(ff)", ln->dir.x, ln->dir.y);
            bool ok = bn && d && PyList_Append(lines, chars) == 0
                && PyList_Append(blocks, bn) == 0 && PyList_Append(dirs, d) == 0;
            Py_DECREF(chars);
            Py_XDECREF(bn);
            Py_XDECREF(d);
            if (!ok) return false;
        }
    }
    return true;
}

static PyObject *page_lines(PyObject *, PyObject *args)
{
    unsigned long long address;
    if (!PyArg_ParseTuple(args, "K", &address)) return nullptr;
    if (!char_bbox) {
        PyErr_SetString(PyExc_RuntimeError, "init() was not called");
        return nullptr;
    }
    PyObject *lines = PyList_New(0), *blocks = PyList_New(0), *dirs = PyList_New(0);
    bool ok = lines && blocks && dirs;
    ok = ok && walk(reinterpret_cast<fz_stext_page *>(address), lines, blocks, dirs);
    if (!ok) {
        Py_XDECREF(lines);
        Py_XDECREF(blocks);
        Py_XDECREF(dirs);
        // out of memory goes to the caller; any other error (a character Python cannot
        // hold) leaves the page to rawdict, which decides as it always did
        if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_MemoryError)) return nullptr;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(NNN)", lines, blocks, dirs);
}

static PyObject *init(PyObject *, PyObject *args)
{
    unsigned long long address;
    if (!PyArg_ParseTuple(args, "K", &address)) return nullptr;
    char_bbox = reinterpret_cast<char_bbox_fn>(address);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"init", init, METH_VARARGS, "Take the address of PyMuPDF's JM_char_bbox."},
    {"page_lines", page_lines, METH_VARARGS,
     "(lines, blocks, dirs) of the fz_stext_page at an address, or None."},
    {nullptr, nullptr, 0, nullptr}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pagechars", nullptr, -1, methods, nullptr, nullptr, nullptr, nullptr};

PyMODINIT_FUNC PyInit_pagechars(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddStringConstant(m, "MUPDF_VERSION", FZ_VERSION) < 0
              || PyModule_AddStringConstant(m, "PYMUPDF_VERSION", PYMUPDF_VERSION) < 0)) {
        Py_DECREF(m);
        return nullptr;
    }
    return m;
}
