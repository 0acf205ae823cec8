package io.faultline.format;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The one version string of this build: the Maven project version, filtered into a resource at
 * build time. {@code faultline --version} prints it and the recorder writes it into every
 * header's {@code faultline_version}, so the two never disagree.
 */
public final class FaultlineVersion
{
    /** The project version, or a sentence saying the resource is missing (a build outside Maven). */
    public static final String VERSION = load();

    private FaultlineVersion()
    {
    }

    private static String load()
    {
        final Properties properties = new Properties();
        try (InputStream in = FaultlineVersion.class.getResourceAsStream("version.properties"))
        {
            if (in == null)
            {
                return "(unknown version: version.properties is missing from the build)";
            }
            properties.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return properties.getProperty("version");
    }
}
