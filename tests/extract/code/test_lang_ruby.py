"""Ruby fixture projects: the language's rules a sweep of sinatra found wrong, written from the source."""

from tests.extract.graphs import confidences, extract


CORE_NAMES = {
    "lib/bag.rb": '''class Bag
  def key?(k)
    true
  end

  def compact
    self
  end

  def self.new(*args)
    super
  end
end
''',
    "lib/app.rb": '''require 'bag'

def lookup(env, list, klass)
  env.key?('x') && list.compact && klass.new
end

def own
  Bag.new.key?(1)
end
''',
}


def test_ruby_core_method_names_on_unknown_receivers_are_no_guess(tmp_path):
    """`env.key?(k)`, `list.compact`, `klass.new`: every Hash, Array and Class has them, so the repository's
    only `key?` (sinatra's IndifferentHash) is no guess; a receiver whose class is known still resolves."""
    conf = confidences(extract(tmp_path, CORE_NAMES))
    assert not any(src == "fn:lib/app.rb:lookup" for src, _ in conf)
    assert conf[("fn:lib/app.rb:own", "fn:lib/bag.rb:Bag.new")] == 0.9
