//! Container, cluster and cloud deletions: docker/podman, compose, kubectl, helm, terraform and
//! the cloud CLIs; plus which docker and kubectl commands only read.
//!
//! Docker categories keep the reference's names (`dk-container-del`, `dk-volume-del`,
//! `dk-multi-del`, `dk-compose`, …). Volumes hold data and rate high; images and networks are
//! re-creatable and rate low.

use super::{Args, Hit, render};
use crate::BlastRadius::{High, Low, Medium};

pub(super) fn check(name: &str, args: Args<'_>) -> Option<Hit> {
    match name {
        "docker" | "podman" | "nerdctl" => {
            let (sub, rest) = docker_subcommand(args)?;
            docker(name, sub, rest)
        }
        "docker-compose" | "podman-compose" => compose(name, args),
        "kubectl" | "oc" | "k" => kubectl(name, args),
        "helm" => helm(args),
        "terraform" | "tofu" | "pulumi" | "cdk" => infra(name, args),
        "aws" | "gcloud" | "az" | "doctl" | "flyctl" | "heroku" => cloud(name, args),
        _ => None,
    }
}

/// Skips docker's global options and returns the subcommand.
pub(crate) fn docker_subcommand(args: Args<'_>) -> Option<(&str, Args<'_>)> {
    let words = args.words();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let text = word.text.as_str();
        match text {
            "-H" | "--host" | "-c" | "--context" | "--config" | "-l" | "--log-level" => i += 2,
            _ if text.starts_with('-') => i += 1,
            _ => return Some((text, Args(&words[i + 1..]))),
        }
    }
    None
}

/// Removal of several objects at once: many operands, or operands computed at run time
/// (`docker rm $(docker ps -aq)`).
fn many(args: Args<'_>) -> bool {
    let operands = args.operands();
    operands.len() > 3 || operands.iter().any(|w| w.computed)
}

fn docker(tool: &str, sub: &str, args: Args<'_>) -> Option<Hit> {
    let shown = || format!("`{}`", render(&format!("{tool} {sub}"), args));
    // Management commands (`docker container rm`) are folded into their short forms.
    let (object, action, args) = match sub {
        "container" | "image" | "volume" | "network" | "system" | "builder" | "buildx"
        | "service" | "stack" | "secret" | "config" | "plugin" | "swarm" | "context"
        | "compose" => {
            let (action, rest) = args.subcommand()?;
            (sub, action, rest)
        }
        "rmi" => ("image", "rm", args),
        other => ("container", other, args),
    };
    if object == "compose" {
        return compose_action(tool, action, args);
    }
    let radius_hit = match (object, action) {
        ("container", "rm" | "remove") => {
            if many(args) {
                Hit::new(
                    High,
                    "dk-multi-del",
                    format!("{} removes many containers", shown()),
                )
            } else if args.flag('v', "volumes") {
                Hit::new(
                    Medium,
                    "dk-volume-del",
                    format!("{} removes containers and their volumes", shown()),
                )
            } else {
                Hit::new(Medium, "dk-container-del", shown())
            }
        }
        ("container", "prune") => Hit::new(
            Medium,
            "dk-multi-del",
            format!("{} removes all stopped containers", shown()),
        ),
        ("container", "kill" | "stop") => Hit::new(Low, "dk-container-stop", shown()),
        ("container", "run" | "create") => return privileged_run(args, shown),
        ("image", "rm" | "remove") => {
            let radius = if many(args) { Medium } else { Low };
            Hit::new(radius, "dk-image-del", shown())
        }
        ("image", "prune") => {
            let radius = if args.flag('a', "all") { Medium } else { Low };
            Hit::new(radius, "dk-image-del", shown())
        }
        ("volume", "rm" | "remove" | "prune") => Hit::new(
            High,
            "dk-volume-del",
            format!("{} deletes volume data", shown()),
        ),
        ("network", "rm" | "remove" | "prune") => Hit::new(Low, "dk-network-del", shown()),
        ("system", "prune") => {
            if args.long("volumes") {
                Hit::new(
                    High,
                    "dk-volume-del",
                    format!("{} deletes volume data", shown()),
                )
            } else {
                Hit::new(
                    Medium,
                    "dk-multi-del",
                    format!("{} removes unused containers, networks and images", shown()),
                )
            }
        }
        ("builder" | "buildx", "prune" | "rm") => Hit::new(Low, "dk-cache-del", shown()),
        ("service" | "stack", "rm" | "remove" | "down") => {
            Hit::new(Medium, "dk-service-del", shown())
        }
        ("secret" | "config" | "plugin" | "context", "rm" | "remove") => {
            Hit::new(Low, "dk-config-del", shown())
        }
        ("swarm", "leave") if args.flag('f', "force") => Hit::new(High, "dk-swarm", shown()),
        _ => return None,
    };
    Some(radius_hit)
}

/// `docker run --privileged` or a bind mount of `/` or the docker socket gives the container
/// the host.
fn privileged_run(args: Args<'_>, shown: impl Fn() -> String) -> Option<Hit> {
    let words = args.words();
    let host_mount = words.windows(2).any(|pair| {
        matches!(pair[0].text.as_str(), "-v" | "--volume" | "--mount") && mounts_host(&pair[1].text)
    }) || words.iter().any(|w| {
        ["--volume=", "--mount=", "-v"]
            .iter()
            .any(|p| w.text.strip_prefix(p).is_some_and(mounts_host))
    });
    (args.long("privileged") || host_mount).then(|| {
        Hit::new(
            High,
            "dk-privileged",
            format!("{} gives the container the host", shown()),
        )
    })
}

fn mounts_host(spec: &str) -> bool {
    spec.starts_with("/:")
        || spec.contains("docker.sock")
        || spec.contains("source=/,")
        || spec.ends_with("source=/")
}

fn compose(tool: &str, args: Args<'_>) -> Option<Hit> {
    let (action, rest) = compose_subcommand(args)?;
    compose_action(tool, action, rest)
}

/// Skips compose's global options (`-f file`, `-p name`, …) and returns the action.
fn compose_subcommand(args: Args<'_>) -> Option<(&str, Args<'_>)> {
    let words = args.words();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        match word.text.as_str() {
            "-f"
            | "--file"
            | "-p"
            | "--project-name"
            | "--profile"
            | "--env-file"
            | "--project-directory" => i += 2,
            text if text.starts_with('-') => i += 1,
            text => return Some((text, Args(&words[i + 1..]))),
        }
    }
    None
}

fn compose_action(tool: &str, action: &str, args: Args<'_>) -> Option<Hit> {
    let shown = format!("`{}`", render(&format!("{tool} compose {action}"), args));
    match action {
        "down" if args.flag('v', "volumes") => Some(Hit::new(
            High,
            "dk-volume-del",
            format!("{shown} deletes volume data"),
        )),
        "down" if args.long("rmi") => Some(Hit::new(Medium, "dk-compose", shown)),
        "down" => Some(Hit::new(Low, "dk-compose", shown)),
        "rm" if args.flag('v', "volumes") => Some(Hit::new(High, "dk-volume-del", shown)),
        "rm" => Some(Hit::new(Medium, "dk-compose", shown)),
        "kill" | "stop" => Some(Hit::new(Low, "dk-container-stop", shown)),
        _ => None,
    }
}

/// Skips kubectl's global options and returns the subcommand.
pub(crate) fn kubectl_subcommand(args: Args<'_>) -> Option<(&str, Args<'_>)> {
    let words = args.words();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let text = word.text.as_str();
        match text {
            "-n" | "--namespace" | "--context" | "--kubeconfig" | "--cluster" | "--user" | "-s"
            | "--server" | "--token" | "--as" | "--as-group" => i += 2,
            _ if text.starts_with('-') => i += 1,
            _ => return Some((text, Args(&words[i + 1..]))),
        }
    }
    None
}

const CLUSTER_WIDE: &[&str] = &[
    "namespace",
    "namespaces",
    "ns",
    "node",
    "nodes",
    "no",
    "pv",
    "persistentvolume",
    "persistentvolumes",
    "pvc",
    "persistentvolumeclaim",
    "persistentvolumeclaims",
    "crd",
    "crds",
    "customresourcedefinition",
    "customresourcedefinitions",
    "storageclass",
    "storageclasses",
    "sc",
    "clusterrole",
    "clusterroles",
    "clusterrolebinding",
    "clusterrolebindings",
];

fn kubectl(tool: &str, args: Args<'_>) -> Option<Hit> {
    let (sub, rest) = kubectl_subcommand(args)?;
    let shown = || format!("`{}`", render(&format!("{tool} {sub}"), rest));
    match sub {
        "delete" => {
            let kinds = rest
                .operands()
                .first()
                .map(|w| w.text.clone())
                .unwrap_or_default();
            let broad = kinds
                .split([',', '/'])
                .any(|k| CLUSTER_WIDE.contains(&k.to_ascii_lowercase().as_str()));
            let all = rest.long("all") || rest.flag('A', "all-namespaces");
            let forced = rest.long("force") && rest.has_prefix("--grace-period=0");
            let radius = if broad || all || forced { High } else { Medium };
            Some(Hit::new(radius, "k8s-delete", shown()))
        }
        "drain" => Some(Hit::new(
            High,
            "k8s-drain",
            format!("{} evicts every pod from a node", shown()),
        )),
        "cordon" | "taint" => Some(Hit::new(Low, "k8s-drain", shown())),
        "scale" => {
            let zero = rest.has("--replicas=0")
                || rest
                    .words()
                    .windows(2)
                    .any(|p| p[0].text == "--replicas" && p[1].text == "0");
            zero.then(|| Hit::new(Medium, "k8s-scale", format!("{} scales to zero", shown())))
        }
        "replace" if rest.long("force") => Some(Hit::new(Medium, "k8s-delete", shown())),
        "apply" if rest.long("prune") => Some(Hit::new(Medium, "k8s-delete", shown())),
        _ => None,
    }
}

fn helm(args: Args<'_>) -> Option<Hit> {
    let (sub, _) = args.subcommand()?;
    matches!(sub, "uninstall" | "delete" | "del" | "un")
        .then(|| Hit::new(Medium, "k8s-delete", format!("`{}`", render("helm", args))))
}

fn infra(tool: &str, args: Args<'_>) -> Option<Hit> {
    let (sub, rest) = args.subcommand()?;
    let destroys = sub == "destroy" || (sub == "apply" && rest.has("-destroy"));
    destroys.then(|| {
        Hit::new(
            High,
            "infra-destroy",
            format!("`{}` destroys infrastructure", render(tool, args)),
        )
    })
}

fn cloud(tool: &str, args: Args<'_>) -> Option<Hit> {
    let destroys = args.operands().iter().any(|w| {
        let text = w.text.to_ascii_lowercase();
        matches!(text.as_str(), "rm" | "rb" | "remove" | "destroy" | "purge")
            || text.starts_with("delete")
            || text.starts_with("terminate")
            || text.starts_with("remove-")
    });
    destroys.then(|| {
        Hit::new(
            High,
            "cloud-delete",
            format!("`{}` deletes cloud resources", render(tool, args)),
        )
    })
}

/// Whether a docker command only reads (`ps`, `images`, `logs` without `-f`, …).
pub(crate) fn docker_read_only(args: Args<'_>) -> bool {
    // The client configuration names credential helpers and plugin directories: programs.
    if args.long("config") {
        return false;
    }
    let Some((sub, rest)) = docker_subcommand(args) else {
        return args.has("--version") || args.has("-v");
    };
    let follows = rest.flag('f', "follow");
    match sub {
        "ps" | "images" | "inspect" | "version" | "info" | "top" | "port" | "diff" | "history"
        | "search" => true,
        "logs" => !follows,
        "stats" => rest.long("no-stream"),
        "container" | "image" | "volume" | "network" | "system" | "context" | "buildx" => {
            let Some((action, inner)) = rest.subcommand() else {
                return false;
            };
            match (sub, action) {
                ("container", "logs") => !inner.flag('f', "follow"),
                ("container", "stats") => inner.long("no-stream"),
                ("container", "ls" | "list" | "ps" | "inspect" | "top" | "port" | "diff")
                | ("image", "ls" | "list" | "inspect" | "history")
                | ("volume" | "network", "ls" | "list" | "inspect")
                | ("system", "df" | "info")
                | ("context", "ls" | "list" | "show" | "inspect")
                | ("buildx", "ls" | "version") => true,
                // `--bootstrap` starts the builder.
                ("buildx", "inspect") => !inner.long("bootstrap"),
                _ => false,
            }
        }
        "compose" => compose_read_only(rest),
        _ => false,
    }
}

/// Whether a compose command only reads.
pub(crate) fn compose_read_only(args: Args<'_>) -> bool {
    match compose_subcommand(args) {
        Some(("logs", rest)) => !rest.flag('f', "follow"),
        // `config -o FILE` writes the resolved file.
        Some(("config", rest)) => !rest.flag('o', "output"),
        Some((action, _)) => matches!(
            action,
            "ps" | "ls" | "config" | "images" | "version" | "top" | "port"
        ),
        None => false,
    }
}

/// Whether a kubectl command only reads (`get`, `describe`, `logs` without `-f`, …).
pub(crate) fn kubectl_read_only(args: Args<'_>) -> bool {
    // A kubeconfig's `exec` credential plugin is a program run on every request; another
    // server receives the current user's credentials.
    if args.long("kubeconfig") || args.long("server") || args.has("-s") || args.has_prefix("-s=") {
        return false;
    }
    let Some((sub, rest)) = kubectl_subcommand(args) else {
        return false;
    };
    match sub {
        "get" => !rest.flag('w', "watch") && !rest.long("watch-only"),
        "logs" => !rest.flag('f', "follow"),
        "describe" | "top" | "version" | "api-resources" | "api-versions" | "cluster-info"
        | "explain" => true,
        "config" => rest.subcommand().is_some_and(|(s, _)| {
            matches!(
                s,
                "view" | "get-contexts" | "current-context" | "get-clusters" | "get-users"
            )
        }),
        "auth" => rest
            .subcommand()
            .is_some_and(|(s, _)| matches!(s, "can-i" | "whoami")),
        "rollout" => rest
            .subcommand()
            .is_some_and(|(s, _)| matches!(s, "status" | "history")),
        _ => false,
    }
}
