#!/usr/bin/env bash
# A lavapipe (Mesa's CPU Vulkan driver) new enough for vkd3d-proton, without installing
# anything: Debian 12's Mesa 22.3 lacks what vkd3d-proton asks of an instance, but
# bookworm-backports' Mesa 25.0 works with Debian 12's own Vulkan loader (1.3.239).
#
#   tools/vkd3d-proton/lavapipe.sh DIR     (default DIR: target/lavapipe)
#
# Fetches mesa-vulkan-drivers and the libdrm it needs from bookworm-backports through apt
# with private lists and cache under DIR (the system's apt configuration is not touched),
# unpacks them into DIR/root, writes DIR/lvp.json (the ICD with an absolute library path)
# and DIR/env (the environment to run with), and prints the latter:
#
#   . target/lavapipe/env && tools/vkd3d-proton/run-suite.sh ...
#
# libllvm15 and the X/Wayland client libraries lavapipe links come from Debian 12 itself
# (installed with apt-get when missing: libllvm15, libvulkan1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
dir=${1:-$repo/target/lavapipe}; mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
mesa=${MESA_VERSION:-25.0.7-2~bpo12+1}

missing=()
for p in libvulkan1 libllvm15 libwayland-client0 libx11-xcb1 libxcb-dri3-0 libxcb-present0 libxcb-randr0 \
         libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxshmfence1 libelf1 libzstd1; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$dir/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" ]; then
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
  echo "deb http://deb.debian.org/debian bookworm-backports main" > "$dir/apt/sources.list"
  apt=(-o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$dir/apt/lists"
       -o "Dir::Cache=$dir/apt/cache" -o APT::Sandbox::User=root)
  apt-get "${apt[@]}" update -qq
  drm=$(apt-cache "${apt[@]}" show "mesa-vulkan-drivers=$mesa" | sed -n 's/^Depends:.*libdrm2 (>= \([^)]*\)).*/\1/p')
  drm_version=$(apt-cache "${apt[@]}" policy libdrm2 | awk '/Candidate:/ {print $2}')
  echo "mesa-vulkan-drivers $mesa (needs libdrm2 >= $drm; backports has $drm_version)"
  (cd "$dir/debs" && apt-get "${apt[@]}" download "mesa-vulkan-drivers=$mesa" "libdrm2=$drm_version" "libdrm-amdgpu1=$drm_version")
  rm -rf "$dir/root"; mkdir -p "$dir/root"
  for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done
fi
lib=$dir/root/usr/lib/x86_64-linux-gnu
sed "s#\"libvulkan_lvp.so\"#\"$lib/libvulkan_lvp.so\"#" "$dir/root/usr/share/vulkan/icd.d/lvp_icd.json" > "$dir/lvp.json"
cat > "$dir/env" <<EOF
export VK_ICD_FILENAMES=$dir/lvp.json
export VK_DRIVER_FILES=$dir/lvp.json
export LD_LIBRARY_PATH=$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
EOF
cat "$dir/env"
