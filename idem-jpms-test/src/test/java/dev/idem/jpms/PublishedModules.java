package dev.idem.jpms;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Which artifacts idem publishes, read from the build itself rather than from a list here:
 * the {@code dev.idem} jars {@code idem-bom} manages, and the reactor's modules that deploy a
 * jar (packaging {@code jar}, {@code maven.deploy.skip} not {@code true} in the module or a
 * parent of it inside the repository). The root is the {@code idem.root} system property.
 */
final class PublishedModules {
    private static final Path ROOT = Path.of(System.getProperty("idem.root", "..")).toAbsolutePath().normalize();

    private PublishedModules() {
    }

    /** The jar artifacts of group {@code dev.idem} in idem-bom's dependencyManagement. */
    static Set<String> fromBom() {
        Element project = read(ROOT.resolve("idem-bom/pom.xml"));
        Element management = child(project, "dependencyManagement");
        Set<String> artifacts = new TreeSet<>();
        for (Element dependency : children(child(management, "dependencies"), "dependency")) {
            String type = text(dependency, "type");
            if ("dev.idem".equals(text(dependency, "groupId")) && (type == null || type.equals("jar"))) {
                artifacts.add(text(dependency, "artifactId"));
            }
        }
        if (artifacts.isEmpty()) {
            throw new AssertionError("no dev.idem artifact in " + ROOT.resolve("idem-bom/pom.xml"));
        }
        return artifacts;
    }

    /** The reactor modules, from the root pom's modules down, that deploy a jar. */
    static Set<String> fromReactor() {
        Set<String> artifacts = new TreeSet<>();
        collect(ROOT.resolve("pom.xml"), artifacts);
        return artifacts;
    }

    private static void collect(Path pom, Set<String> published) {
        Element project = read(pom);
        String packaging = text(project, "packaging");
        if ((packaging == null || packaging.equals("jar")) && !deploySkipped(pom)) {
            published.add(text(project, "artifactId"));
        }
        Element modules = child(project, "modules");
        if (modules != null) {
            for (Element module : children(modules, "module")) {
                Path dir = pom.getParent().resolve(module.getTextContent().trim()).normalize();
                collect(Files.isDirectory(dir) ? dir.resolve("pom.xml") : dir, published);
            }
        }
    }

    /** The module's own maven.deploy.skip, else its nearest parent's inside the repository. */
    private static boolean deploySkipped(Path pom) {
        for (Path p = pom; p != null; p = parentPom(p)) {
            Element properties = child(read(p), "properties");
            String skip = properties == null ? null : text(properties, "maven.deploy.skip");
            if (skip != null) {
                return skip.equals("true");
            }
        }
        return false;
    }

    private static Path parentPom(Path pom) {
        Element parent = child(read(pom), "parent");
        if (parent == null) {
            return null;
        }
        String relative = text(parent, "relativePath");
        Path p = pom.getParent().resolve(relative == null ? "../pom.xml" : relative).normalize();
        if (Files.isDirectory(p)) {
            p = p.resolve("pom.xml");
        }
        return p.startsWith(ROOT) && Files.isRegularFile(p) ? p : null;
    }

    private static Element read(Path pom) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = factory.newDocumentBuilder().parse(pom.toFile());
            return doc.getDocumentElement();
        } catch (Exception e) {
            throw new AssertionError("cannot read " + pom, e);
        }
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element && ((Element) n).getTagName().equals(name)) {
                found.add((Element) n);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }
}
