"""The parameters that name an overload in its id, as the language's users write them (`ltm.extract.overloads`)."""

import pytest

from ltm.extract.languages import LANGUAGES
from ltm.extract.parse import parse_source

CASES = [
    ("java", "class A { void read(String s, int n) {} void read(final @Nullable List<String> xs, int... rest) {} }",
     ["(String,int)", "(List<String>,int...)"]),
    ("c_sharp", "class A { void Read(string s, ref int n) {} void Read(this JToken t, params object[] xs) {}"
                " void Read(Dictionary<string,  int> d, int x = 3) {} }",
     ["(string,ref int)", "(JToken,object[])", "(Dictionary<string,int>,int)"]),
    ("kotlin", "class A {\n fun read(s: String, n: Int) {}\n fun read(vararg xs: List<String>?) {}\n}\n",
     ["(String,Int)", "(vararg List<String>?)"]),
    ("cpp", "void A::read(const std::string &s, int n) {}\nvoid A::read(char* p, int (*cb)(int), int n = 3) {}\n"
            "void A::read(void) {}\n",
     ["(const std::string&,int)", "(char*,int (*)(int),int)", "()"]),
    ("c", "int f(const char *fmt, ...) { return 0; }\nint f(char buf[16]) { return 1; }\n",
     ["(const char*,...)", "(char[16])"]),
    ("go", "package p\nfunc f(a int, b ...string) {}\nfunc f(x, y map[string]int) {}\n",
     ["(int,...string)", "(map[string]int,map[string]int)"]),
    ("python", "class S:\n    def g(self, k: int) -> int: ...\n    def g(self, k: str, *args, **kw): ...\n"
               "    def g(self, k): return k\n",
     ["(int)", "(str,*_,**_)", "(_)"]),
    ("swift", "class R {\n func request(_ u: String, method: Int = 1) {}\n func request(_ u: String, didFail e: Error) {}\n}\n",
     ["(_:method:)", "(_:didFail:)"]),
]


@pytest.mark.parametrize(("language", "source", "keys"), CASES, ids=[c[0] for c in CASES])
def test_overloads_are_keyed_by_their_parameter_types_without_names_or_defaults(language, source, keys):
    defs = parse_source(LANGUAGES[language], source.encode())["defs"]
    assert [d["overload"] for d in defs if d["kind"] == "function"] == keys


def test_a_name_defined_once_is_not_keyed():
    """Only definitions that share their qualified name pay for reading their parameters."""
    defs = parse_source(LANGUAGES["java"], b"class A { void read(String s) {} void write(int n) {} }")["defs"]
    assert [d["overload"] for d in defs] == [None, None, None]
