/**
 * Prints where faultline's start-up points zstd-jni for its library (FaultlineJarTest): the file
 * beside faultline.jar, or null where there is none and zstd-jni copies its own out of the jar.
 */
public class ZstdWhere
{
    public static void main(final String[] args)
    {
        io.faultline.format.Startup.prepare();
        System.out.println("ZstdNativePath=" + System.getProperty("ZstdNativePath"));
        System.out.println("compressed " + com.github.luben.zstd.Zstd.compress(new byte[4096]).length);
    }
}
