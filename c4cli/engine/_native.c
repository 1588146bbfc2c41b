/*
 * c4cli.engine._native: the solver's search in C, the same algorithm and the
 * same answers as c4cli/engine/solver.py (read that file for the score
 * convention and the method). Built by pip where a C compiler exists; the
 * pure-Python search is used where it does not.
 *
 * Bitboards: column c, row r (0 = floor) is bit c*7 + r; bit c*7 + 6 is a
 * sentinel above each column, so a column's stones plus its bottom bit carry
 * into the next free cell.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIDTH 7
#define HEIGHT 6
#define CELLS (WIDTH * HEIGHT)
#define H1 (HEIGHT + 1)

/* A table of upper bounds: 8,388,593 (a prime) entries. Keys are below 2^49, so
 * the key modulo the size plus its low 32 bits name it uniquely. */
#define TABLE_SIZE 8388593u

/* Key and value side by side: a probe costs one cache line, not two. */
typedef struct {
    uint32_t key;
    int8_t value;
} entry_t;

static entry_t *table = NULL;
static unsigned long long nodes = 0;

/* The opening book (c4cli/engine/book.py says the format): a buffer of 5-byte
 * records held for as long as this module lives, or none. */
#define BOOK_PLY 12
#define RECORD 5
static Py_buffer book = {0};
static Py_ssize_t book_entries = 0;

static const uint64_t BOTTOM = 0x40810204081ULL; /* bit c*7 for every column */
static const uint64_t FULL = 0x40810204081ULL * 63ULL;
static const int ORDER[WIDTH] = {3, 2, 4, 1, 5, 0, 6};

static inline uint64_t column_mask(int col) { return ((1ULL << HEIGHT) - 1) << (col * H1); }

static inline uint64_t winning_cells(uint64_t stones, uint64_t mask)
{
    uint64_t r = (stones << 1) & (stones << 2) & (stones << 3);
    const int shifts[3] = {H1, H1 - 1, H1 + 1};
    for (int i = 0; i < 3; i++) {
        int s = shifts[i];
        uint64_t pair = (stones << s) & (stones << (2 * s));
        r |= pair & (stones << (3 * s));
        r |= pair & (stones >> s);
        pair = (stones >> s) & (stones >> (2 * s));
        r |= pair & (stones << s);
        r |= pair & (stones >> (3 * s));
    }
    return r & (FULL ^ mask);
}

static inline int popcount(uint64_t x) { return __builtin_popcountll(x); }

static int table_get(uint64_t key)
{
    const entry_t *e = &table[key % TABLE_SIZE];
    return e->key == (uint32_t)key ? e->value : 0;
}

static void table_put(uint64_t key, int value)
{
    entry_t *e = &table[key % TABLE_SIZE];
    e->key = (uint32_t)key;
    e->value = (int8_t)value;
}

/* The book's code of a position: columns from the left (or the right, for the
 * mirror image), each from its floor: 10 a first-player stone, 11 a second-player
 * one, 0 where the column ends; then a final 0. With 12 stones down the side to
 * move is the first player, so `current` holds the first player's stones. */
static uint32_t book_code(uint64_t current, uint64_t mask, int mirror)
{
    uint32_t bits = 0;
    for (int i = 0; i < WIDTH; i++) {
        int col = mirror ? WIDTH - 1 - i : i;
        int row = 0;
        for (; row < HEIGHT; row++) {
            uint64_t cell = 1ULL << (col * H1 + row);
            if (!(mask & cell))
                break;
            bits = (bits << 2) | ((current & cell) ? 2u : 3u);
        }
        bits <<= 1;
    }
    return bits << 1;
}

/* 1 with *value set when the code is in the book, else 0. */
static int book_find(uint32_t code, int *value)
{
    const unsigned char *data = book.buf;
    int32_t wanted = (int32_t)code;
    Py_ssize_t low = 0, high = book_entries - 1;
    while (low <= high) {
        Py_ssize_t mid = low + (high - low) / 2;
        const unsigned char *at = data + mid * RECORD;
        int32_t found = (int32_t)(((uint32_t)at[0] << 24) | ((uint32_t)at[1] << 16) |
                                  ((uint32_t)at[2] << 8) | (uint32_t)at[3]);
        if (found == wanted) {
            *value = (int8_t)at[4];
            return 1;
        }
        if (found < wanted)
            low = mid + 1;
        else
            high = mid - 1;
    }
    return 0;
}

/* The score of a 12-stone position for the side to move, in Pons' convention;
 * 0 when the book is absent or lacks the position, else 1 with *score set. */
static int book_score(uint64_t current, uint64_t mask, int *score)
{
    int value;
    if (!book_entries)
        return 0;
    if (!book_find(book_code(current, mask, 0), &value) &&
        !book_find(book_code(current, mask, 1), &value))
        return 0;
    *score = value > 0 ? (value - 69) / 2 : value < 0 ? (value + 68) / 2 : 0;
    return 1;
}

/* Values in the table are stored as value - MIN + 1 so that 0 means empty. */
#define MIN_SCORE (-(CELLS / 2) + 3)

/* Set when a signal handler raised (Ctrl-C, SIGTERM: STOPPED_BY_SIGNAL) or the
 * deadline passed (STOPPED_BY_DEADLINE): the search unwinds at once, storing
 * nothing more in the table (what it holds stays true), and the call returns with
 * the handler's exception or TimeoutError. */
#define STOPPED_BY_SIGNAL 1
#define STOPPED_BY_DEADLINE 2
static int stopped = 0;
static double deadline = 0; /* CLOCK_MONOTONIC seconds (Python's time.monotonic); 0: none */

static double monotonic(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int negamax(uint64_t current, uint64_t mask, int moves, int alpha, int beta)
{
    nodes++;
    /* The GIL is held throughout, so Python's handlers run only when asked to:
     * every 65536 positions, a few microseconds in a second of search. */
    if ((nodes & 0xFFFF) == 0) {
        if (PyErr_CheckSignals() < 0)
            stopped = STOPPED_BY_SIGNAL;
        else if (deadline > 0 && monotonic() >= deadline)
            stopped = STOPPED_BY_DEADLINE;
    }
    if (stopped)
        return 0;
    uint64_t possible = (mask + BOTTOM) & FULL;
    uint64_t opponent_wins = winning_cells(current ^ mask, mask);
    uint64_t forced = possible & opponent_wins;
    if (forced) {
        if (forced & (forced - 1))
            return -((CELLS - moves) / 2);
        possible = forced;
    }
    uint64_t playable = possible & ~(opponent_wins >> 1);
    if (!playable)
        return -((CELLS - moves) / 2);
    if (moves >= CELLS - 2)
        return 0;
    int exact;
    if (moves == BOOK_PLY && book_score(current, mask, &exact))
        return exact;
    int low = -((CELLS - 2 - moves) / 2);
    if (alpha < low) {
        alpha = low;
        if (alpha >= beta)
            return alpha;
    }
    int high = (CELLS - 1 - moves) / 2;
    uint64_t key = current + mask;
    int stored = table_get(key);
    if (stored)
        high = stored + MIN_SCORE - 1;
    if (beta > high) {
        beta = high;
        if (alpha >= beta)
            return beta;
    }
    /* Moves by the threats they leave behind, centre first among equals. */
    uint64_t order[WIDTH];
    int score_of[WIDTH];
    int count = 0;
    for (int i = 0; i < WIDTH; i++) {
        uint64_t move = playable & column_mask(ORDER[i]);
        if (!move)
            continue;
        int threats = popcount(winning_cells(current | move, mask));
        int at = count++;
        while (at > 0 && score_of[at - 1] < threats) {
            order[at] = order[at - 1];
            score_of[at] = score_of[at - 1];
            at--;
        }
        order[at] = move;
        score_of[at] = threats;
    }
    uint64_t opponent = current ^ mask;
    for (int i = 0; i < count; i++) {
        int score = -negamax(opponent, mask | order[i], moves + 1, -beta, -alpha);
        if (stopped)
            return 0;
        if (score >= beta)
            return score;
        if (score > alpha)
            alpha = score;
    }
    table_put(key, alpha - MIN_SCORE + 1);
    return alpha;
}

static int half(int x) { return x / 2; } /* C division rounds toward zero */

static int solve(uint64_t current, uint64_t mask, int moves)
{
    if (winning_cells(current, mask) & (mask + BOTTOM) & FULL)
        return (CELLS + 1 - moves) / 2;
    int low = -((CELLS - moves) / 2), high = (CELLS + 1 - moves) / 2;
    while (low < high) {
        int med = low + (high - low) / 2;
        if (med <= 0 && half(low) < med)
            med = half(low);
        else if (med >= 0 && half(high) > med)
            med = half(high);
        int r = negamax(current, mask, moves, med, med + 1);
        if (stopped)
            return 0;
        if (r <= med)
            high = r;
        else
            low = r;
    }
    return low;
}

static PyObject *native_solve(PyObject *self, PyObject *args)
{
    unsigned long long current, mask;
    int moves;
    double until = 0;
    if (!PyArg_ParseTuple(args, "KKi|d", &current, &mask, &moves, &until))
        return NULL;
    if (moves < 0 || moves >= CELLS || (current & ~mask) || (mask & ~FULL)) {
        PyErr_SetString(PyExc_ValueError, "not a position the solver takes");
        return NULL;
    }
    if (table == NULL) {
        /* Written through once now, so that the search never stops for the
         * kernel to map a fresh page of the table (about 15 ms, once). */
        table = calloc(TABLE_SIZE, sizeof *table);
        if (table == NULL)
            return PyErr_NoMemory();
        /* calloc'd pages are mapped on first touch: touch each one now (a
         * volatile store the compiler cannot drop), not in the middle of a search. */
        volatile char *bytes = (volatile char *)table;
        for (size_t at = 0; at < TABLE_SIZE * sizeof *table; at += 4096)
            bytes[at] = 0;
    }
    /* The GIL stays held: the table is shared by every call of this process. */
    stopped = 0;
    deadline = until;
    int score = solve(current, mask, moves);
    deadline = 0;
    if (stopped) {
        int why = stopped;
        stopped = 0;
        if (why == STOPPED_BY_DEADLINE) {
            PyErr_SetString(PyExc_TimeoutError, "the search ran out of time");
            return NULL;
        }
        return NULL; /* the exception the signal handler raised */
    }
    return PyLong_FromLong(score);
}

/* solve_moves("4453"): the position after those moves (already checked to be
 * digits 1-7), refused with the pure-Python search's words when a column is
 * full or the game is over before its end. */
static PyObject *native_solve_moves(PyObject *self, PyObject *args)
{
    const char *text;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "s#", &text, &length))
        return NULL;
    uint64_t current = 0, mask = 0;
    int moves = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        int col = text[i] - '1';
        if (col < 0 || col >= WIDTH) {
            PyErr_SetString(PyExc_ValueError, "moves must be digits 1-7");
            return NULL;
        }
        if (mask & (1ULL << (HEIGHT - 1 + col * H1))) {
            PyErr_Format(PyExc_ValueError, "move %zd: column %d is full", i + 1, col + 1);
            return NULL;
        }
        uint64_t move = (mask + (1ULL << (col * H1))) & column_mask(col);
        if (winning_cells(current, mask) & move) {
            PyErr_Format(PyExc_ValueError, "move %zd ends the game: nothing is left to solve",
                         i + 1);
            return NULL;
        }
        current ^= mask;
        mask |= move;
        moves++;
    }
    if (moves == CELLS) {
        PyErr_SetString(PyExc_ValueError, "the board is full: nothing is left to solve");
        return NULL;
    }
    PyObject *position = Py_BuildValue("KKi", (unsigned long long)current,
                                       (unsigned long long)mask, moves);
    if (position == NULL)
        return NULL;
    PyObject *result = native_solve(self, position);
    Py_DECREF(position);
    return result;
}

/* set_book(buffer): the book to consult from now on (None: no book). */
static PyObject *native_set_book(PyObject *self, PyObject *arg)
{
    if (book.obj != NULL)
        PyBuffer_Release(&book);
    book_entries = 0;
    if (arg == Py_None)
        Py_RETURN_NONE;
    if (PyObject_GetBuffer(arg, &book, PyBUF_SIMPLE) < 0)
        return NULL;
    if (book.len == 0 || book.len % RECORD) {
        PyBuffer_Release(&book);
        PyErr_SetString(PyExc_ValueError, "not an opening book");
        return NULL;
    }
    book_entries = book.len / RECORD;
    /* Bounds found with the previous book (or none) sit in the table: a search
     * with this one starts afresh, so two books can be compared in one process. */
    if (table != NULL)
        memset(table, 0, TABLE_SIZE * sizeof *table);
    Py_RETURN_NONE;
}

static PyObject *native_nodes(PyObject *self, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(nodes);
}

static PyMethodDef methods[] = {
    {"solve", native_solve, METH_VARARGS,
     "solve(current, mask, moves[, deadline]) -> the exact score of a position that is not "
     "over; TimeoutError once time.monotonic() passes the deadline"},
    {"solve_moves", native_solve_moves, METH_VARARGS,
     "solve_moves(moves) -> the exact score after those moves (1-based columns)"},
    {"set_book", native_set_book, METH_O, "set_book(buffer or None) -> the opening book to use"},
    {"nodes", native_nodes, METH_NOARGS, "nodes() -> positions searched so far"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The solver's search in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
