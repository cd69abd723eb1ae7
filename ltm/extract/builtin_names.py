"""Names of each language's built-in methods and functions: a guess by name alone skips them.

`x.get(k)` where nothing says what `x` is: the only method named `get` in the repository is a poor
guess when every dict, Map or string of the language also has one (on this project a plain dict's
`out.get(...)` became a call to `SpanCache.get`). The resolver still follows such a call when the
receiver is known (`self`, an attribute whose class is known, a class name, an import); only the
repository-wide unique-method guess (0.3) leaves these names alone (`resolve.py`), as the
unique-function guess (0.5) leaves the built-in functions alone.

Python's names come from the interpreter itself; JavaScript's are the own function-valued properties
of the prototypes of its standard built-in types as Node 20 lists them, written out here (regenerate:
`node -e 'for (const t of [Array, String, Map, Set, WeakMap, WeakSet, Object, Promise, Function,
RegExp, Number, Boolean, Symbol, Date, Error]) console.log(Object.getOwnPropertyNames(t.prototype)
.filter(n => typeof Object.getOwnPropertyDescriptor(t.prototype, n).value === "function")
.join(" "))'`).
Go's built-in types (maps, slices, strings) have no methods; its one predeclared interface, `error`, has
`Error()`: `err.Error()` is not the repository's only `Error` method (cobra's `flagCompError.Error`).

The same holds for a bare `open(path)`: a name the file neither defines nor imports is the
language's built-in function when it has one (`*_FUNCTIONS`), not the repository's only top-level
`open` (click's `examples/termui/termui.py`). Python's come from `builtins`; JavaScript's are the
global functions of ECMAScript and of its hosts' timers and loaders, as Node 20 has them; C's are ISO
C's library functions; Go's are its predeclared functions (`len`, `append`, `close`, ...).
"""

from __future__ import annotations

import builtins

_PYTHON_TYPES = (dict, list, set, frozenset, tuple, str, bytes, bytearray, int, float, complex, bool, object)

# methods only (`str.join`, `dict.get`, `object.__init__`), not data attributes (`complex.real`)
PYTHON_METHODS: frozenset[str] = frozenset(
    name for t in _PYTHON_TYPES for name in dir(t) if callable(getattr(t, name)))

JAVASCRIPT_METHODS: frozenset[str] = frozenset((
    "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "add", "anchor", "apply",
    "at", "big", "bind", "blink", "bold", "call", "catch", "charAt", "charCodeAt", "clear", "codePointAt",
    "compile", "concat", "constructor", "copyWithin", "delete", "endsWith", "entries", "every", "exec",
    "fill", "filter", "finally", "find", "findIndex", "findLast", "findLastIndex", "fixed", "flat", "flatMap",
    "fontcolor", "fontsize", "forEach", "get", "getDate", "getDay", "getFullYear", "getHours",
    "getMilliseconds", "getMinutes", "getMonth", "getSeconds", "getTime", "getTimezoneOffset", "getUTCDate",
    "getUTCDay", "getUTCFullYear", "getUTCHours", "getUTCMilliseconds", "getUTCMinutes", "getUTCMonth",
    "getUTCSeconds", "getYear", "has", "hasOwnProperty", "includes", "indexOf", "isPrototypeOf",
    "isWellFormed", "italics", "join", "keys", "lastIndexOf", "link", "localeCompare", "map", "match",
    "matchAll", "normalize", "padEnd", "padStart", "pop", "propertyIsEnumerable", "push", "reduce",
    "reduceRight", "repeat", "replace", "replaceAll", "reverse", "search", "set", "setDate", "setFullYear",
    "setHours", "setMilliseconds", "setMinutes", "setMonth", "setSeconds", "setTime", "setUTCDate",
    "setUTCFullYear", "setUTCHours", "setUTCMilliseconds", "setUTCMinutes", "setUTCMonth", "setUTCSeconds",
    "setYear", "shift", "slice", "small", "some", "sort", "splice", "split", "startsWith", "strike", "sub",
    "substr", "substring", "sup", "test", "then", "toDateString", "toExponential", "toFixed", "toGMTString",
    "toISOString", "toJSON", "toLocaleDateString", "toLocaleLowerCase", "toLocaleString",
    "toLocaleTimeString", "toLocaleUpperCase", "toLowerCase", "toPrecision", "toReversed", "toSorted",
    "toSpliced", "toString", "toTimeString", "toUTCString", "toUpperCase", "toWellFormed", "trim", "trimEnd",
    "trimLeft", "trimRight", "trimStart", "unshift", "valueOf", "values", "with",
))

PYTHON_FUNCTIONS: frozenset[str] = frozenset(
    n for n in dir(builtins) if not n.startswith("_") and callable(getattr(builtins, n)))

# what `x = open(p)` or `with open(p) as x` holds is a built-in value (a file, a str, a list), never an
# object of the repository: `x.write()` is not the repository's only `write` (starlette's tests writing
# fixtures were guessed into `UploadFile.write`). The built-in types construct such values; `type`,
# `super` and `object` (and the descriptors) do not, and `getattr`, `next`, `max` return what they are given.
PYTHON_VALUES: frozenset[str] = frozenset(
    {n for n in dir(builtins) if not n.startswith("_") and isinstance(getattr(builtins, n), type)}
    - {"type", "super", "object", "property", "classmethod", "staticmethod"}
    | {"open", "sorted", "len", "repr", "ascii", "format", "bin", "hex", "oct", "chr", "ord", "input"})

JAVASCRIPT_FUNCTIONS: frozenset[str] = frozenset((
    "atob", "btoa", "clearImmediate", "clearInterval", "clearTimeout", "decodeURI", "decodeURIComponent",
    "encodeURI", "encodeURIComponent", "escape", "eval", "fetch", "isFinite", "isNaN", "parseFloat", "parseInt",
    "queueMicrotask", "require", "setImmediate", "setInterval", "setTimeout", "structuredClone", "unescape",
))

# ISO C's library functions (C11, 7.4-7.29: ctype, locale, math, setjmp, signal, stdio, stdlib, string,
# time): a bare `fclose(f)` that no definition in the file or its includes names is the C library's, not
# the repository's only `fclose` (jq's `src/inject_errors.c`, a shim that wraps libc's for tests)
C_FUNCTIONS: frozenset[str] = frozenset((
    "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct", "isspace",
    "isupper", "isxdigit", "tolower", "toupper", "setlocale", "localeconv",
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh", "exp",
    "exp2", "expm1", "frexp", "ilogb", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "scalbn",
    "scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor",
    "nearbyint", "rint", "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod", "remainder",
    "remquo", "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma",
    "longjmp", "setjmp", "signal", "raise",
    "remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen", "setbuf", "setvbuf",
    "fprintf", "fscanf", "printf", "scanf", "snprintf", "sprintf", "sscanf", "vfprintf", "vfscanf", "vprintf",
    "vscanf", "vsnprintf", "vsprintf", "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc", "getchar", "putc",
    "putchar", "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek", "fsetpos", "ftell", "rewind",
    "clearerr", "feof", "ferror", "perror",
    "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul", "strtoull",
    "rand", "srand", "aligned_alloc", "calloc", "free", "malloc", "realloc", "abort", "atexit", "at_quick_exit",
    "exit", "_Exit", "getenv", "quick_exit", "system", "bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv",
    "lldiv", "mblen", "mbtowc", "wctomb", "mbstowcs", "wcstombs",
    "memcpy", "memmove", "strcpy", "strncpy", "strcat", "strncat", "memcmp", "strcmp", "strcoll", "strncmp",
    "strxfrm", "memchr", "strchr", "strcspn", "strpbrk", "strrchr", "strspn", "strstr", "strtok", "memset",
    "strerror", "strlen",
    "clock", "difftime", "mktime", "time", "timespec_get", "asctime", "ctime", "gmtime", "localtime", "strftime",
))

# Go's predeclared functions (the Go spec, "Built-in functions"), its predeclared types, which convert when
# called (`string(b)`, `int64(n)`), and the method of its predeclared `error`
GO_FUNCTIONS: frozenset[str] = frozenset((
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min", "new",
    "panic", "print", "println", "real", "recover",
    "any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64", "int", "int8",
    "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
))
GO_METHODS: frozenset[str] = frozenset(("Error",))
